package dev.statekit.examples;

import dev.statekit.core.Machine;
import java.util.List;
import java.util.Optional;

/** The five seed machines, by name. */
public final class SeedMachines {
    private static final List<Machine<?, ?>> ALL = List.of(
            NovelProoferJob.MACHINE,
            NovelProoferChunk.MACHINE,
            ReadDoItem.MACHINE,
            EtlTask.MACHINE,
            CompressionTask.MACHINE);

    private SeedMachines() {}

    /** Returns every seed machine, in a stable order. */
    public static List<Machine<?, ?>> all() {
        return ALL;
    }

    /** Returns the seed machine named {@code name}, if there is one. */
    public static Optional<Machine<?, ?>> byName(String name) {
        for (Machine<?, ?> m : ALL) if (m.name().equals(name)) return Optional.of(m);
        return Optional.empty();
    }

    /** Returns the names of the seed machines, in the order of {@link #all()}. */
    public static List<String> names() {
        return ALL.stream().map(Machine::name).toList();
    }
}
