package dev.statekit.dashboard;

import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.io.InputStream;
import java.util.Map;
import java.util.Objects;

/**
 * The dashboard as a Jakarta Servlet (6.0 and later), for a servlet container or a framework on
 * one. Map it at the dashboard's base path and below ({@code BASE/*}); the container's
 * authentication gives {@link DashboardRequest#principal()}.
 *
 * <pre>{@code
 * ServletRegistration.Dynamic r = context.addServlet("statekit", new DashboardServlet(dashboard));
 * r.addMapping(dashboard.basePath() + "/*");
 * }</pre>
 *
 * <p>Only this class needs the servlet API, which {@code statekit-dashboard} declares optional: a
 * program that serves the dashboard otherwise never loads it.
 */
public final class DashboardServlet extends HttpServlet {
    private static final long serialVersionUID = 1L;

    private final transient Dashboard dashboard;

    /**
     * Creates the servlet of {@code dashboard}.
     *
     * @param dashboard the dashboard it serves
     */
    public DashboardServlet(Dashboard dashboard) {
        this.dashboard = Objects.requireNonNull(dashboard, "dashboard");
    }

    /**
     * Answers a request: its path from the context's ({@code getRequestURI()} without the context
     * path) goes to {@link Dashboard#handle}; a body longer than {@link Dashboard#MAX_BODY} is 413.
     *
     * @param request  the request
     * @param response the response
     * @throws IOException when the body cannot be read or the answer written
     */
    @Override
    protected void service(HttpServletRequest request, HttpServletResponse response) throws IOException {
        String uri = request.getRequestURI();
        String context = request.getContextPath();
        String path = context != null && !context.isEmpty() && uri.startsWith(context) ? uri.substring(context.length()) : uri;
        byte[] body;
        try (InputStream in = request.getInputStream()) {
            body = in.readNBytes(Dashboard.MAX_BODY + 1);
        }
        DashboardResponse answer;
        if (body.length > Dashboard.MAX_BODY) {
            answer = Dashboard.error(new DashboardException(413, "PAYLOAD_TOO_LARGE", "the body is larger than " + Dashboard.MAX_BODY + " bytes"));
            response.setHeader("Connection", "close");
        } else {
            answer = dashboard.handle(DashboardRequest.of(request.getMethod(), path, request.getQueryString(), request::getHeader,
                    request.getUserPrincipal(), body));
        }
        response.setStatus(answer.status());
        response.setContentType(answer.contentType());
        for (Map.Entry<String, String> h : answer.headers().entrySet()) response.setHeader(h.getKey(), h.getValue());
        byte[] bytes = answer.body();
        response.setContentLength(bytes.length);
        if (!request.getMethod().equalsIgnoreCase("HEAD")) response.getOutputStream().write(bytes);
    }
}
