package dev.statekit.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.RefusalCode;
import dev.statekit.core.Task;
import dev.statekit.core.Transition;
import dev.statekit.core.TransitionEngine;
import dev.statekit.core.spi.ManualClock;
import dev.statekit.store.memory.InMemoryStore;
import dev.statekit.store.TriggerSource;
import java.util.List;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/** Random event sequences against every seed machine: the engine follows the table and refusals change nothing. */
class SeedMachinesPropertyTest {

    @Property(tries = 300)
    void anySequenceOfEventsFollowsTheTable(@ForAll @IntRange(min = 0, max = 4) int machine,
                                            @ForAll @Size(max = 40) List<@IntRange(min = 0, max = 999) Integer> moves) {
        check(SeedMachines.all().get(machine), moves);
    }

    private static <S extends Enum<S>, E extends Enum<E>> void check(Machine<S, E> machine, List<Integer> moves) {
        TransitionEngine engine = TransitionEngine.builder().store(new InMemoryStore()).clock(new ManualClock()).build();
        long id = engine.create(machine).task().id();
        E[] events = machine.eventType().getEnumConstants();
        for (int move : moves) {
            E event = events[move % events.length];
            TriggerSource source = (move / events.length) % 2 == 0 ? TriggerSource.SYSTEM : TriggerSource.USER;
            Command command = source == TriggerSource.USER ? Command.user("u") : Command.system();
            Task<S> before = engine.find(machine, id).orElseThrow();
            Outcome<S> o = engine.fire(machine, id, event, command);
            Task<S> after = engine.find(machine, id).orElseThrow();
            boolean allowed = machine.allowedEvents(before.state(), source).contains(event);
            if (o instanceof Outcome.Refused<S> r) {
                assertThat(after.version()).isEqualTo(before.version());
                assertThat(after.state()).isEqualTo(before.state());
                assertThat(after.attributes()).isEqualTo(before.attributes());
                if (allowed) {
                    assertThat(r.code()).isEqualTo(RefusalCode.GUARD_REFUSED);
                    assertThat(machine.transitions(before.state(), event)).filteredOn(t -> t.allows(source))
                            .allMatch(Transition::guarded);
                } else {
                    assertThat(r.code()).isEqualTo(RefusalCode.ILLEGAL_TRANSITION);
                }
            } else {
                assertThat(allowed).as("%s applied %s by %s in %s", machine.name(), event, source, before.state()).isTrue();
                assertThat(machine.isTerminal(before.state())).isFalse();
                assertThat(after.version()).isEqualTo(before.version() + 1);
                assertThat(machine.transitions(before.state(), event))
                        .anyMatch(t -> t.allows(source) && t.to() == after.state());
            }
        }
        assertThat((long) engine.history(id).size()).isEqualTo(engine.find(machine, id).orElseThrow().version());
    }
}
