package dev.statekit.dashboard;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.util.Locale;
import java.util.Map;

/** The dashboard on the JDK's HTTP server: the exchange read as a {@link DashboardRequest}, the answer written back. */
final class JdkHandler implements HttpHandler {
    private final Dashboard dashboard;

    JdkHandler(Dashboard dashboard) {
        this.dashboard = dashboard;
    }

    @Override
    public void handle(HttpExchange exchange) throws IOException {
        try (exchange) {
            String method = exchange.getRequestMethod().toUpperCase(Locale.ROOT);
            DashboardResponse response;
            byte[] body = read(exchange.getRequestBody());
            if (body == null) {
                response = Dashboard.error(new DashboardException(413, "PAYLOAD_TOO_LARGE", "the body is larger than " + Dashboard.MAX_BODY + " bytes"));
                exchange.getResponseHeaders().set("Connection", "close");
            } else {
                DashboardRequest request = DashboardRequest.of(method, exchange.getRequestURI().getRawPath(), exchange.getRequestURI().getRawQuery(),
                        exchange.getRequestHeaders()::getFirst, exchange.getPrincipal(), body);
                response = dashboard.handle(request);
            }
            exchange.getResponseHeaders().set("Content-Type", response.contentType());
            for (Map.Entry<String, String> h : response.headers().entrySet()) exchange.getResponseHeaders().set(h.getKey(), h.getValue());
            byte[] bytes = response.body();
            if (method.equals("HEAD")) {
                exchange.sendResponseHeaders(response.status(), -1);
            } else {
                exchange.sendResponseHeaders(response.status(), bytes.length == 0 ? -1 : bytes.length);
                if (bytes.length > 0) {
                    try (OutputStream out = exchange.getResponseBody()) {
                        out.write(bytes);
                    }
                }
            }
        }
    }

    /** Returns the whole body, or null when it is longer than {@link Dashboard#MAX_BODY}. */
    private static byte[] read(InputStream in) throws IOException {
        byte[] body = in.readNBytes(Dashboard.MAX_BODY + 1);
        return body.length > Dashboard.MAX_BODY ? null : body;
    }
}
