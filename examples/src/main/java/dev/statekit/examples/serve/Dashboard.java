package dev.statekit.examples.serve;

/**
 * The web dashboard every service serves at {@code /ui}.
 */
final class Dashboard {
    private final Service service;
    private final String system;
    private final boolean readOnly;

    Dashboard(Service service, String system, boolean readOnly) {
        this.service = service;
        this.system = system;
        this.readOnly = readOnly;
    }

    /** Adds the dashboard's routes. */
    void routes(Router router) {
        router.get("/ui", x -> Reply.text("text/plain; charset=utf-8", system + " (" + service.machines().size() + " machines"
                + (readOnly ? ", read-only" : "") + ")"));
    }
}
