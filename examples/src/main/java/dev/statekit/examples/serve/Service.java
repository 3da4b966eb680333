package dev.statekit.examples.serve;

import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.core.runtime.TaskRuntime;
import dev.statekit.core.TransitionEngine;
import dev.statekit.store.TaskError;
import dev.statekit.store.TaskRecord;
import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * A seed system served over HTTP: its engine and runtime on the service's store, its machines and
 * queues for the dashboard, and the routes of its own API.
 *
 * <p>Every seed system's service is a {@link SystemService}. {@link ServeCommand} creates it
 * through its {@link Factory}, adds its routes and the
 * dashboard's to one server, calls {@link #start()}, and {@link #close()}s it when the process is
 * asked to stop.
 */
public interface Service extends AutoCloseable {
    /** Creates a service of one seed system. */
    interface Factory {
        /** Returns the system's name on the command line, e.g. {@code novel-proofer}. */
        String name();

        /** Returns one line saying what the service is. */
        String summary();

        /** Returns the service's own command-line options, which {@code serve} parses and its usage lists. */
        Options options();

        /** Creates the service; nothing runs before {@link Service#start()}. */
        Service create(ServeContext context) throws Exception;
    }

    /** Returns the engine every change of the service goes through. */
    TransitionEngine engine();

    /** Returns the runtime running the service's work. */
    TaskRuntime runtime();

    /** Returns the machines of the service's tasks, the top-level machine first. */
    List<Machine<?, ?>> machines();

    /** Returns the queues of the service's work, for the dashboard's controls. */
    List<String> queues();

    /**
     * Returns the largest request body the service accepts, in bytes (413 {@code PAYLOAD_TOO_LARGE}
     * above it): {@link HttpServer.Limits#DEFAULTS}' 64 KiB unless a service whose documented
     * limits need more (a text of so many characters) says so.
     */
    default int maxBody() {
        return HttpServer.Limits.DEFAULTS.maxBody();
    }

    /** Adds the routes of the seed's API. */
    void routes(Router router);

    /** Starts the service's work: recovery after a restart, then the runtime. */
    void start();

    /**
     * Fires the user event {@code event} on task {@code id} of {@code machine} for {@code actor}, as
     * the dashboard's buttons do. The default fires it through the engine; a service overrides it
     * where an event means more than one change (cancelling running work, pausing a job's chunks).
     */
    default Outcome<?> fireUser(Machine<?, ?> machine, long id, String event, String actor) {
        return Fires.user(engine(), machine, id, event, actor);
    }

    /**
     * Retries the failed children of parent {@code id}, as the dashboard's "retry failed children"
     * does.
     *
     * @return the reply to send
     * @throws ApiException 409 {@code NOT_SUPPORTED} by default: the service has no parents
     */
    default Reply retryFailedChildren(Machine<?, ?> machine, long id, String actor) {
        throw new ApiException(409, "NOT_SUPPORTED", "tasks of " + machine.name() + " have no children to retry");
    }

    /**
     * Returns what blocks task {@code task} beyond its own record, for the top of its dashboard page:
     * e.g. the error of another task doing a step of its work. None by default.
     */
    default List<TaskError> blockingErrors(TaskRecord task) {
        return List.of();
    }

    /**
     * Returns what firing the user event {@code event} on task {@code id} of {@code machine}
     * deletes, in words naming it, for the dashboard's confirmation; null (the default) when it
     * deletes nothing.
     */
    default @Nullable String deletes(Machine<?, ?> machine, long id, String event) {
        return null;
    }

    /** Stops the service's work gracefully: the runtime finishes or hands back what it holds. */
    @Override
    void close();
}
