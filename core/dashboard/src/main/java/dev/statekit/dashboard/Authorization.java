package dev.statekit.dashboard;

import org.jspecify.annotations.Nullable;

/**
 * Who may change what through the dashboard. The host's identity function
 * ({@link Dashboard.Builder#identity}) names the user of each request (null for nobody); every change
 * is first refused with 403 {@code FORBIDDEN} when {@link #mayChange} says no (a read-only
 * dashboard), then asked to {@link #allows} with the action's name and its target, and refused
 * with 403 {@code FORBIDDEN} when that says no. Views are asked to {@link #mayView}.
 *
 * <p>The actions, by name:
 * <ul>
 *   <li>on a task ({@link Target#task}): its user event in lower case with {@code -} for {@code _}
 *       ({@code retry}, {@code cancel}, {@code hold}, {@code start-process}), and
 *       {@code retry-failed-children};</li>
 *   <li>on a queue ({@link Target#queue}): {@code pause}, {@code resume}, {@code stop-after-current},
 *       {@code concurrency};</li>
 *   <li>on the tasks of a machine ({@link Target#machine}): {@code bulk-retry}, {@code bulk-cancel},
 *       {@code bulk-delete};</li>
 *   <li>on a recurring schedule ({@link Target#schedule}): {@code pause}, {@code resume}, {@code delete}.</li>
 * </ul>
 * For example, anyone signed in may retry, only admins may delete:
 * <pre>{@code
 * Authorization.allow((user, action, target) -> user != null && (!action.contains("delete") || admins.contains(user)))
 * }</pre>
 */
@FunctionalInterface
public interface Authorization {
    /**
     * Returns whether {@code user} may do {@code action} to {@code target}.
     *
     * @param user   the request's user as the identity function named it, or null for nobody
     * @param action the action's name, e.g. {@code retry}, {@code bulk-delete}
     * @param target what it acts on
     * @return whether the action may go ahead
     */
    boolean allows(@Nullable String user, String action, Target target);

    /**
     * Returns whether {@code user} may change anything at all; the page shows no controls to a user
     * who may not. True unless overridden.
     *
     * @param user the request's user, or null for nobody
     * @return whether changes are asked to {@link #allows} at all
     */
    default boolean mayChange(@Nullable String user) {
        return true;
    }

    /**
     * Returns whether {@code user} may see the dashboard (its page and its reads); 403 otherwise.
     * True unless overridden.
     *
     * @param user the request's user, or null for nobody
     * @return whether the dashboard answers this user's reads
     */
    default boolean mayView(@Nullable String user) {
        return true;
    }

    /**
     * Returns the authorization that decides each action by {@code rule}; everyone may view.
     *
     * @param rule decides each action
     * @return the authorization
     */
    static Authorization allow(Authorization rule) {
        return rule::allows;
    }

    /**
     * Returns the authorization of a dashboard that changes nothing: everyone may view, no one may
     * change anything. A dashboard built without an authorization has this one.
     *
     * @return the read-only authorization
     */
    static Authorization readOnly() {
        return new Authorization() {
            @Override
            public boolean allows(@Nullable String user, String action, Target target) {
                return false;
            }

            @Override
            public boolean mayChange(@Nullable String user) {
                return false;
            }
        };
    }

    /**
     * Returns the authorization that lets everyone do everything: for a dashboard only trusted
     * people can reach.
     *
     * @return the authorization allowing every action
     */
    static Authorization allowAll() {
        return (user, action, target) -> true;
    }

    /**
     * What an action acts on.
     *
     * @param kind the kind of target: {@code task}, {@code queue}, {@code machine} or {@code schedule}
     * @param name the task's machine, the queue's, the machine's or the schedule's name
     * @param task the task's id, 0 for any other kind
     */
    record Target(String kind, String name, long task) {
        /**
         * Returns the task {@code id} of {@code machine}.
         *
         * @param machine the task's machine's name
         * @param id      the task's id
         * @return the target
         */
        public static Target task(String machine, long id) {
            return new Target("task", machine, id);
        }

        /**
         * Returns a queue.
         *
         * @param name the queue's name
         * @return the target
         */
        public static Target queue(String name) {
            return new Target("queue", name, 0);
        }

        /**
         * Returns the tasks of a machine (a bulk action's).
         *
         * @param name the machine's name
         * @return the target
         */
        public static Target machine(String name) {
            return new Target("machine", name, 0);
        }

        /**
         * Returns a recurring schedule.
         *
         * @param name the schedule's name
         * @return the target
         */
        public static Target schedule(String name) {
            return new Target("schedule", name, 0);
        }

        /**
         * Returns the target as text, e.g. {@code task dash-item#12}, {@code queue emails}.
         *
         * @return the kind and the name (and the id of a task)
         */
        @Override
        public String toString() {
            return kind + " " + name + (task == 0 ? "" : "#" + task);
        }
    }
}
