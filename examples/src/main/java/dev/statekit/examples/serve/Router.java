package dev.statekit.examples.serve;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.jspecify.annotations.Nullable;

/**
 * The routes of a service: a method and a path template whose segments are literal or a
 * parameter in braces ({@code /items/{id}/process}). The first route whose template matches
 * answers; a path that matches with another method is answered 405.
 */
public final class Router {
    private final List<Entry> entries = new ArrayList<>();
    private final List<Mount> mounts = new ArrayList<>();

    private record Entry(String method, String[] segments, Route route) {}

    private record Mount(String prefix, Route route) {}

    /** A route found for a request, with its path parameters. */
    record Match(Route route, Map<String, String> parameters) {}

    /** Adds a GET route. */
    public Router get(String template, Route route) {
        return add("GET", template, route);
    }

    /** Adds a POST route. */
    public Router post(String template, Route route) {
        return add("POST", template, route);
    }

    /** Adds a PUT route. */
    public Router put(String template, Route route) {
        return add("PUT", template, route);
    }

    /** Adds a DELETE route. */
    public Router delete(String template, Route route) {
        return add("DELETE", template, route);
    }

    /** Adds a route for {@code method} and {@code template}. */
    public Router add(String method, String template, Route route) {
        if (!template.startsWith("/")) throw new IllegalArgumentException("a route's template starts with '/': " + template);
        entries.add(new Entry(method, split(template), route));
        return this;
    }

    /**
     * Hands every request at {@code prefix} or below it, whatever its method, to {@code route}
     * (which answers 404 and 405 itself): a whole application under one path, such as the dashboard.
     */
    public Router mount(String prefix, Route route) {
        if (!prefix.startsWith("/") || prefix.endsWith("/")) throw new IllegalArgumentException("a mount's prefix is /SEGMENT…: " + prefix);
        mounts.add(new Mount(prefix, route));
        return this;
    }

    /**
     * Returns the route for {@code method} and {@code path}.
     *
     * @throws ApiException 404 when no route has the path, 405 when none has it with this method
     */
    Match match(String method, String path) {
        for (Mount m : mounts) {
            if (path.equals(m.prefix()) || path.startsWith(m.prefix() + "/")) return new Match(m.route(), Map.of());
        }
        String[] segments = split(path);
        Set<String> methods = new LinkedHashSet<>();
        for (Entry e : entries) {
            Map<String, String> parameters = parameters(e.segments(), segments);
            if (parameters == null) continue;
            if (e.method().equals(method) || (method.equals("HEAD") && e.method().equals("GET"))) return new Match(e.route(), parameters);
            methods.add(e.method());
        }
        if (methods.isEmpty()) throw new ApiException(404, "NOT_FOUND", "no resource at " + truncate(path));
        throw new ApiException(405, "METHOD_NOT_ALLOWED", method + " is not allowed on " + truncate(path) + "; allowed: "
                + String.join(", ", methods), null, List.copyOf(methods));
    }

    private static @Nullable Map<String, String> parameters(String[] template, String[] path) {
        if (template.length != path.length) return null;
        Map<String, String> parameters = new LinkedHashMap<>();
        for (int i = 0; i < template.length; i++) {
            String t = template[i];
            if (t.startsWith("{") && t.endsWith("}")) {
                if (path[i].isEmpty()) return null;
                parameters.put(t.substring(1, t.length() - 1), path[i]);
            } else if (!t.equals(path[i])) {
                return null;
            }
        }
        return parameters;
    }

    private static String[] split(String path) {
        String p = path.endsWith("/") && path.length() > 1 ? path.substring(0, path.length() - 1) : path;
        return p.substring(1).split("/", -1);
    }

    static String truncate(String text) {
        return text.length() <= 80 ? text : text.substring(0, 80) + "…";
    }
}
