package dev.statekit.jdbc;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.store.ApplyResult;
import dev.statekit.store.Attributes;
import dev.statekit.store.GroupPass;
import dev.statekit.store.GroupRecord;
import dev.statekit.store.GroupResolver;
import dev.statekit.store.GroupWrite;
import dev.statekit.store.NewTask;
import dev.statekit.store.TaskRecord;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/** What the JDBC store's resolution passes do with owners other transactions hold, and with marks of owners that are gone. */
class GroupPassesTest {
    static final Instant T0 = Instant.parse("2031-04-05T13:30:00Z");
    static final GroupResolver KEEP = v -> GroupResolver.Resolution.keep(v.group());

    static NewTask task(String state, Long parent) {
        return new NewTask("job", 1, state, "q", 0, parent, Attributes.EMPTY, null, null, null, T0);
    }

    static TaskRecord ownerOfOne(JdbcStore store) {
        TaskRecord owner = store.create(task("WAITING", null)).task();
        assertThat(store.applyAll(List.of(), List.of(GroupWrite.sealed(owner.id(), List.of(task("READY", owner.id()))))))
                .isEqualTo(ApplyResult.APPLIED);
        return owner;
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void aPassSkipsAnOwnerAnotherTransactionHoldsAndTakesTheNextOne(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            JdbcStore store = db.store();
            TaskRecord held = ownerOfOne(store);
            TaskRecord free = ownerOfOne(store);
            List<Long> seen = new ArrayList<>();
            GroupResolver recording = v -> {
                seen.add(v.owner().id());
                return KEEP.resolve(v);
            };
            try (Connection other = db.pool().getConnection()) {
                other.setAutoCommit(false);
                try (PreparedStatement lock = other.prepareStatement("select id from " + store.tablePrefix() + "tasks where id = ? for update")) {
                    lock.setLong(1, held.id());
                    try (ResultSet rs = lock.executeQuery()) {
                        assertThat(rs.next()).isTrue();
                    }
                }
                GroupPass pass = store.resolveGroups(List.of("job"), T0, 1, recording);
                assertThat(pass.resolved()).isEqualTo(1);
                assertThat(pass.groups()).extracting(GroupRecord::ownerId).containsExactly(free.id());
                assertThat(pass.marksLeft()).as("the held owner's look").isTrue();
                assertThat(seen).containsExactly(free.id());
                assertThat(store.pendingMarks()).as("the held owner's look").isEqualTo(1);
                other.commit();
            }
            assertThat(store.resolveGroups(List.of("job"), T0, 1, recording).resolved()).isEqualTo(1);
            assertThat(seen).containsExactly(free.id(), held.id());
            assertThat(store.pendingMarks()).isZero();
        }
    }

    @ParameterizedTest
    @EnumSource(Dialect.class)
    void marksOfAnOwnerThatIsGoneAreDeletedByThePassThatPicksThem(Dialect dialect) throws Exception {
        try (Opened db = Opened.open(dialect)) {
            JdbcStore store = db.store();
            db.update("insert into {p}marks (owner_id, owner_machine, member_machine, from_state, to_state)"
                    + " values (?, 'job', 'job', 'READY', 'RUNNING')", 1_000_000L);
            assertThat(store.pendingMarks()).isEqualTo(1);
            GroupPass pass = store.resolveGroups(List.of("job"), T0, 10, KEEP);
            assertThat(pass.resolved()).isZero();
            assertThat(pass.marksLeft()).isFalse();
            assertThat(store.pendingMarks()).isZero();
        }
    }
}
