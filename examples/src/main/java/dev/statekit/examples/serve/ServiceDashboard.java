package dev.statekit.examples.serve;

import dev.statekit.core.Command;
import dev.statekit.core.Machine;
import dev.statekit.core.Outcome;
import dev.statekit.dashboard.Actions;
import dev.statekit.dashboard.Authorization;
import dev.statekit.dashboard.Dashboard;
import dev.statekit.dashboard.DashboardException;
import dev.statekit.dashboard.DashboardRequest;
import dev.statekit.dashboard.DashboardResponse;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.StringJoiner;
import java.util.function.Supplier;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The published dashboard ({@code statekit-dashboard}) on a service's router at {@value #BASE}: the
 * thin adapter from this server's {@link Exchange} to a {@link DashboardRequest} and from the
 * {@link DashboardResponse} to a {@link Reply}.
 *
 * <p>The user of a request is its {@value Exchange#ACTOR_HEADER} header (400 {@code INVALID_ACTOR}
 * when it is not 1 to 64 letters, digits or {@code ._@:-}); every user may change everything, unless
 * the service runs with {@code --read-only-dashboard}. The buttons act through
 * {@link Service#fireUser} and {@link Service#retryFailedChildren}, whose errors keep their status
 * and code; an event that deletes ({@link Service#deletes}) is confirmed first. The overview counts
 * what waits from the service's runtime's metrics, and a task's page shows what
 * {@link Service#blockingErrors} says blocks it.
 */
public final class ServiceDashboard {
    /** Where the dashboard is served. */
    public static final String BASE = "/ui";
    private static final Pattern ACTOR = Pattern.compile("[A-Za-z0-9._@:-]{1,64}");

    private ServiceDashboard() {}

    /** Mounts the dashboard of {@code service} (named {@code system}) on {@code router}. */
    public static Dashboard mount(Router router, Service service, String system, boolean readOnly) {
        Dashboard dashboard = Dashboard.builder(service.engine())
                .name(system)
                .machines(service.machines())
                .queues(service.queues())
                .basePath(BASE)
                .identity(ServiceDashboard::user)
                .authorization(readOnly ? Authorization.readOnly() : Authorization.allowAll())
                .actions(new ServiceActions(service))
                .metrics(service.runtime()::metrics)
                .blockingErrors(service::blockingErrors)
                .build();
        router.mount(BASE, x -> reply(dashboard.handle(request(x))));
        return dashboard;
    }

    /** The user of a request: its X-User header, if valid. */
    private static @Nullable String user(DashboardRequest request) {
        String value = request.header(Exchange.ACTOR_HEADER);
        if (value == null || value.isEmpty()) return null;
        if (!ACTOR.matcher(value).matches()) {
            throw new DashboardException(400, "INVALID_ACTOR", Exchange.ACTOR_HEADER + " must be 1 to 64 letters, digits or . _ @ : -",
                    Exchange.ACTOR_HEADER, null);
        }
        return value;
    }

    /** The service's buttons, their errors turned into the dashboard's. */
    private record ServiceActions(Service service) implements Actions {
        @Override
        public Outcome<?> fire(Machine<?, ?> machine, long id, String event, Command command) {
            return translated(() -> service.fireUser(machine, id, event, Objects.requireNonNull(command.actor())));
        }

        @Override
        public Object retryFailedChildren(Machine<?, ?> machine, long id, Command command) {
            Reply reply = translated(() -> service.retryFailedChildren(machine, id, Objects.requireNonNull(command.actor())));
            return Objects.requireNonNull(reply.body());
        }

        @Override
        public @Nullable String deletes(Machine<?, ?> machine, long id, String event) {
            return service.deletes(machine, id, event);
        }

        private static <T> T translated(Supplier<T> action) {
            try {
                return action.get();
            } catch (ApiException e) {
                Map<String, Object> body = e.body();
                @SuppressWarnings("unchecked")
                List<String> allowed = (List<String>) body.get("allowed");
                throw new DashboardException(e.status(), e.errorCode(), e.getMessage(), (String) body.get("field"), allowed);
            }
        }
    }

    /** Returns the exchange as the dashboard's request: its path and query encoded again as sent. */
    static DashboardRequest request(Exchange x) {
        StringBuilder path = new StringBuilder();
        for (String segment : x.path().substring(1).split("/", -1)) path.append('/').append(encode(segment));
        StringJoiner query = new StringJoiner("&");
        for (Map.Entry<String, List<String>> p : x.queryParameters().entrySet()) {
            for (String v : p.getValue()) query.add(encode(p.getKey()) + "=" + encode(v));
        }
        return DashboardRequest.of(x.method(), path.toString(), query.length() == 0 ? null : query.toString(), x::headerOrNull, null, x.rawBody());
    }

    private static String encode(String text) {
        return URLEncoder.encode(text, StandardCharsets.UTF_8).replace("+", "%20");
    }

    /** Returns the dashboard's answer as this server's reply. */
    static Reply reply(DashboardResponse response) {
        return new Reply(response.status(), response.body(), response.contentType());
    }
}
