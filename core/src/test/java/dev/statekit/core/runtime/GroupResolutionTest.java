package dev.statekit.core.runtime;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.GroupsTest;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A runtime's passes run one at a time: a pass asked for while another runs (a round on another
 * thread, woken by another process's change) runs after it, when the groups the first held are
 * free again, and not beside it, where it would skip them.
 */
class GroupResolutionTest {
    final RuntimeParts parts = new RuntimeParts();
    final GroupResolution groups = new GroupResolution(parts.started("resolver"), List.of(GroupsTest.JOB));

    int passes() {
        return parts.spy.calls("resolveGroups").size();
    }

    @Test
    void aPassAskedForWhileOneRunsRunsAfterItNotBesideIt() {
        int[] seen = new int[2];
        parts.spy.afterNext("resolveGroups", () -> {     // the first pass has read its groups and not ended
            seen[0] = passes();
            groups.run();                                 // as the housekeeping of another round would
            seen[1] = passes();
        });

        groups.run();

        assertThat(seen[0]).as("passes when the second was asked for").isEqualTo(1);
        assertThat(seen[1]).as("passes when that call returned: none beside the first").isEqualTo(1);
        assertThat(passes()).as("the first pass, then the one asked for during it").isEqualTo(2);
    }

    @Test
    void aRequestDuringAPassIsRunAfterItAndARoundWithoutOneRunsNone() {
        int[] seen = new int[1];
        parts.spy.afterNext("resolveGroups", () -> {
            groups.request();                             // another process's change, heard during the pass
            groups.runIfRequested();                      // the round that wake-up started
            seen[0] = passes();
        });

        groups.run();
        assertThat(seen[0]).as("passes when the requested round returned").isEqualTo(1);
        assertThat(passes()).as("the first pass, then the requested one").isEqualTo(2);

        groups.runIfRequested();
        assertThat(passes()).as("a round with nothing requested").isEqualTo(2);
        groups.request();
        groups.runIfRequested();
        assertThat(passes()).as("a round after a request").isEqualTo(3);
    }
}
