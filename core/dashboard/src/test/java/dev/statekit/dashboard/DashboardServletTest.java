package dev.statekit.dashboard;

import static org.assertj.core.api.Assertions.assertThat;

import dev.statekit.core.Command;
import dev.statekit.core.TaskSpec;
import dev.statekit.core.TransitionEngine;
import dev.statekit.store.memory.InMemoryStore;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletOutputStream;
import jakarta.servlet.WriteListener;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.lang.reflect.Proxy;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.Principal;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The dashboard as a servlet: the request's path within its context, its principal and body, and
 * the answer's status, headers and body; and the servlet API needed by {@link DashboardServlet} only.
 */
class DashboardServletTest {
    final TransitionEngine engine = TransitionEngine.builder().store(new InMemoryStore()).build();

    /** What a servlet wrote. */
    static final class Written {
        int status;
        final Map<String, String> headers = new HashMap<>();
        final ByteArrayOutputStream body = new ByteArrayOutputStream();
    }

    static HttpServletRequest request(String method, String uri, String query, Map<String, String> headers, Principal principal, String body) {
        ByteArrayInputStream in = new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8));
        ServletInputStream stream = new ServletInputStream() {
            @Override
            public boolean isFinished() {
                return in.available() == 0;
            }

            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setReadListener(ReadListener listener) {}

            @Override
            public int read() {
                return in.read();
            }
        };
        return (HttpServletRequest) Proxy.newProxyInstance(DashboardServletTest.class.getClassLoader(), new Class<?>[] {HttpServletRequest.class},
                (proxy, m, args) -> switch (m.getName()) {
                    case "getMethod" -> method;
                    case "getRequestURI" -> uri;
                    case "getContextPath" -> "/app";
                    case "getQueryString" -> query;
                    case "getHeader" -> headers.get(((String) args[0]).toLowerCase(Locale.ROOT));
                    case "getUserPrincipal" -> principal;
                    case "getInputStream" -> stream;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
    }

    static HttpServletResponse response(Written w) {
        ServletOutputStream out = new ServletOutputStream() {
            @Override
            public boolean isReady() {
                return true;
            }

            @Override
            public void setWriteListener(WriteListener listener) {}

            @Override
            public void write(int b) {
                w.body.write(b);
            }
        };
        return (HttpServletResponse) Proxy.newProxyInstance(DashboardServletTest.class.getClassLoader(), new Class<?>[] {HttpServletResponse.class},
                (proxy, m, args) -> {
                    switch (m.getName()) {
                        case "setStatus" -> w.status = (Integer) args[0];
                        case "setContentType" -> w.headers.put("Content-Type", (String) args[0]);
                        case "setHeader" -> w.headers.put((String) args[0], (String) args[1]);
                        case "setContentLength" -> w.headers.put("Content-Length", String.valueOf(args[0]));
                        case "getOutputStream" -> {
                            return out;
                        }
                        default -> throw new UnsupportedOperationException(m.getName());
                    }
                    return null;
                });
    }

    @Test
    void aServletAnswersWithinItsContextAsThePrincipalTheContainerAuthenticated() throws Exception {
        long id = engine.create(DashboardTest.TICKET, TaskSpec.defaults().queue("tickets")).task().id();
        engine.fire(DashboardTest.TICKET, id, DashboardTest.Event.FAIL, Command.system());
        Dashboard dashboard = Dashboard.builder(engine).machines(DashboardTest.TICKET).basePath("/ops")
                .authorization(Authorization.allow((user, action, target) -> "erin".equals(user))).build();
        DashboardServlet servlet = new DashboardServlet(dashboard);

        Written page = new Written();
        servlet.service(request("GET", "/app/ops", null, Map.of(), null, ""), response(page));
        assertThat(page.status).isEqualTo(200);
        assertThat(page.headers).containsEntry("Content-Type", "text/html; charset=utf-8").containsKey("Content-Security-Policy");
        assertThat(page.body.toString(StandardCharsets.UTF_8)).contains("src=\"/ops/assets/app.js\"");

        Written list = new Written();
        servlet.service(request("GET", "/app/ops/api/tasks", "machine=ticket&state=FAILED", Map.of(), null, ""), response(list));
        assertThat(list.status).isEqualTo(200);
        assertThat(list.body.toString(StandardCharsets.UTF_8)).contains("\"id\":" + id);
        assertThat(list.headers).containsEntry("Content-Length", String.valueOf(list.body.size()));

        Map<String, String> json = Map.of("content-type", "application/json", "origin", "https://ops.example", "host", "ops.example");
        Written retried = new Written();
        servlet.service(request("POST", "/app/ops/api/tasks/" + id + "/events", null, json, () -> "erin", "{\"event\":\"RETRY\"}"), response(retried));
        assertThat(retried.status).as(retried.body.toString(StandardCharsets.UTF_8)).isEqualTo(200);
        var history = engine.history(DashboardTest.TICKET, id);
        assertThat(history.get(history.size() - 1).entry().actor()).isEqualTo("erin");
        assertThat(history.get(history.size() - 1).eventName()).isEqualTo("RETRY");

        Written refused = new Written();
        servlet.service(request("POST", "/app/ops/api/queues/tickets/pause", null, json, () -> "frank", "{}"), response(refused));
        assertThat(refused.status).isEqualTo(403);
        Written crossSite = new Written();
        servlet.service(request("POST", "/app/ops/api/queues/tickets/pause", null, Map.of("content-type", "application/json",
                "origin", "https://evil.example", "host", "ops.example"), () -> "erin", "{}"), response(crossSite));
        assertThat(crossSite.status).isEqualTo(403);
        assertThat(crossSite.body.toString(StandardCharsets.UTF_8)).contains("CROSS_SITE_REQUEST");
        Written tooLarge = new Written();
        servlet.service(request("POST", "/app/ops/api/bulk/count", null, json, () -> "erin", "x".repeat(Dashboard.MAX_BODY + 1)), response(tooLarge));
        assertThat(tooLarge.status).isEqualTo(413);
    }

    @Test
    void onlyTheServletNeedsTheServletApi() throws Exception {
        Path classes = Path.of(DashboardServlet.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        Path dir = classes.resolve("dev/statekit/dashboard");
        List<Path> files;
        try (Stream<Path> all = Files.list(dir)) {
            files = all.filter(p -> p.toString().endsWith(".class")).toList();
        }
        assertThat(files).hasSizeGreaterThan(8);
        for (Path f : files) {
            String name = f.getFileName().toString();
            boolean servlet = name.equals("DashboardServlet.class");
            String text = new String(Files.readAllBytes(f), StandardCharsets.ISO_8859_1);
            assertThat(text.contains("jakarta/servlet")).as(name).isEqualTo(servlet);
        }
    }
}
