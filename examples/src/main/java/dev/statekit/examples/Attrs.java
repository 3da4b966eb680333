package dev.statekit.examples;

import dev.statekit.core.Command;
import dev.statekit.core.Task;
import org.jspecify.annotations.Nullable;

/** Small pure helpers shared by the guards and effects of the seed machines. */
final class Attrs {
    private Attrs() {}

    /**
     * Returns the value {@code key} will have if the command is applied: the command's own
     * change when it carries one (a removal reads as null), else the task's current value.
     */
    static @Nullable String effective(Task<?> task, Command command, String key) {
        if (command.attributes().containsKey(key)) return command.attributes().get(key);
        return task.attribute(key);
    }

    /** Returns whether {@code value} is present and not blank. */
    static boolean given(@Nullable String value) {
        return value != null && !value.isBlank();
    }

    /** Returns the task's counter {@code key} plus one, as text; an absent or malformed counter counts as 0. */
    static String incremented(Task<?> task, String key) {
        return Integer.toString(count(task, key) + 1);
    }

    /** Returns the task's counter {@code key}; an absent or malformed counter counts as 0. */
    static int count(Task<?> task, String key) {
        String value = task.attribute(key);
        if (value == null) return 0;
        try {
            return Math.max(0, Integer.parseInt(value.trim()));
        } catch (NumberFormatException e) {
            return 0;
        }
    }
}
