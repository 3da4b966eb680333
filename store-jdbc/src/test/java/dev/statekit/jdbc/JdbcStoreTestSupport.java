package dev.statekit.jdbc;

import dev.statekit.store.TaskRecord;
import java.util.ArrayList;
import java.util.List;

/** Small helpers of the tests. */
final class JdbcStoreTestSupport {
    private JdbcStoreTestSupport() {
    }

    static List<Long> ids(List<TaskRecord> tasks) {
        List<Long> ids = new ArrayList<>();
        for (TaskRecord t : tasks) ids.add(t.id());
        return ids;
    }
}
