package dev.statekit.examples.serve;

import dev.statekit.store.StatekitException;
import java.io.IOException;
import java.io.InputStream;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.eclipse.jetty.http.HttpException;
import org.eclipse.jetty.http.HttpStatus;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
import org.eclipse.jetty.server.handler.ErrorHandler;
import org.eclipse.jetty.server.handler.QoSHandler;
import org.eclipse.jetty.server.handler.SizeLimitHandler;
import org.eclipse.jetty.util.Callback;
import org.eclipse.jetty.util.Fields;
import org.eclipse.jetty.util.thread.QueuedThreadPool;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A service's HTTP server: Jetty's server core in front of a {@link Router}.
 *
 * <p>What every request goes through, before its route:
 * <ul>
 *   <li>a body longer than {@link Limits#maxBody} is answered 413: one declared longer after it is
 *       read and dropped (up to {@value #DRAIN} bytes, so the connection stays open), one sent
 *       without a length as soon as it passes the limit (Jetty's {@link SizeLimitHandler});</li>
 *   <li>at most {@link Limits#activeRequests} requests run at once; the others wait up to
 *       {@link Limits#queueWait} and are then answered 503 (Jetty's {@link QoSHandler}), so a flood
 *       of requests holds at most that many of the store's connections and never starves the
 *       workers;</li>
 *   <li>a request that changes something (POST, PUT, DELETE, PATCH) must carry its body as
 *       {@code application/json} (415 otherwise), which a form on another site cannot send without
 *       the browser asking this server first (and it never agrees); a browser request marked
 *       {@code Sec-Fetch-Site: cross-site}, or whose {@code Origin} is not this server, is 403;</li>
 *   <li>every answer carries {@code X-Content-Type-Options: nosniff}, no caching, and pages a
 *       content security policy that runs only the service's own scripts.</li>
 * </ul>
 * Every error is answered as JSON {@code {"error_code", "message", …}}: an {@link ApiException} with
 * its status, a store that cannot be reached with 503 {@code STORE_UNAVAILABLE}, anything else 500
 * {@code INTERNAL_ERROR} (logged), and Jetty's own errors (a malformed request, 413, 503) through
 * {@link JsonErrors}.
 */
public final class HttpServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HttpServer.class);
    private static final String JSON = "application/json; charset=utf-8";
    private static final String CSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
            + "connect-src 'self'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

    /**
     * The server's limits.
     *
     * @param activeRequests how many requests run at once
     * @param queueWait      how long a request waits for its turn before 503
     * @param maxBody        the largest body accepted, in bytes
     * @param threads        the server's threads (at least {@code activeRequests} + 4)
     */
    public record Limits(int activeRequests, Duration queueWait, int maxBody, int threads) {
        /** The defaults: 6 requests at once, 10 s of waiting, 64 KiB bodies, 32 threads. */
        public static final Limits DEFAULTS = new Limits(6, Duration.ofSeconds(10), 64 * 1024, 32);

        /** Returns these limits with bodies of up to {@code bytes}. */
        public Limits withMaxBody(int bytes) {
            return new Limits(activeRequests, queueWait, bytes, threads);
        }

        /** Checks the limits. */
        public Limits {
            if (activeRequests < 1) throw new IllegalArgumentException("activeRequests must be at least 1");
            if (maxBody < 1) throw new IllegalArgumentException("maxBody must be at least 1");
            if (threads < activeRequests + 4) throw new IllegalArgumentException("threads must be at least activeRequests + 4");
        }
    }

    /** How long a connection may stay silent, in the middle of a request or between two, before it is closed. */
    static final long IDLE_TIMEOUT_MILLIS = 15_000;
    /** The most bytes of a body too large to accept that are read and dropped before the 413. */
    static final int DRAIN = 1 << 20;

    private final Server server;
    private final ServerConnector connector;

    private HttpServer(Server server, ServerConnector connector) {
        this.server = server;
        this.connector = connector;
    }

    /**
     * Starts a server on {@code host}:{@code port} (0 for any free port) answering with {@code router}.
     *
     * @throws IOException when the port cannot be bound
     */
    public static HttpServer start(String host, int port, Router router, Limits limits) throws IOException {
        QueuedThreadPool threads = new QueuedThreadPool(limits.threads(), Math.min(8, limits.threads()));
        threads.setName("http");
        Server server = new Server(threads);
        ServerConnector connector = new ServerConnector(server, 1, 1);
        connector.setHost(host);
        connector.setPort(port);
        connector.setIdleTimeout(IDLE_TIMEOUT_MILLIS);
        server.addConnector(connector);
        server.setErrorHandler(new JsonErrors(limits.maxBody()));
        SizeLimitHandler sizes = new SizeLimitHandler(limits.maxBody(), -1);
        sizes.setHandler(new Admission(new Dispatch(router, limits.maxBody()), limits));
        server.setHandler(new DeclaredTooLarge(sizes, limits.maxBody()));
        server.setStopTimeout(2_000);
        try {
            server.start();
        } catch (IOException e) {
            stopQuietly(server);
            throw e;
        } catch (Exception e) {
            stopQuietly(server);
            throw new IOException("cannot start the HTTP server on " + host + ":" + port + ": " + e.getMessage(), e);
        }
        return new HttpServer(server, connector);
    }

    /** Returns the port the server listens on. */
    public int port() {
        return connector.getLocalPort();
    }

    /** Stops accepting requests and ends the server; requests under way get a moment to finish. */
    @Override
    public void close() {
        stopQuietly(server);
    }

    private static void stopQuietly(Server server) {
        try {
            server.stop();
        } catch (Exception e) {
            log.warn("the HTTP server did not stop cleanly: {}", e.toString());
        }
    }

    /**
     * Turns away the requests that waited {@link Limits#queueWait} for their turn with 503
     * {@code BUSY} in the JSON error shape.
     */
    private static final class Admission extends QoSHandler {
        Admission(Handler next, Limits limits) {
            super(next);
            setMaxRequestCount(limits.activeRequests());
            // Jetty reads no wait as "wait for ever"; a limit of no waiting turns requests away at once
            setMaxSuspend(limits.queueWait().isZero() ? Duration.ofMillis(1) : limits.queueWait());
        }

        @Override
        protected void failSuspended(Request request, Response response, Callback callback, int status, Throwable failure) {
            send(request, response, callback, new ApiException(503, "BUSY", "the service is busy; try again").asReply());
        }
    }

    /** The request attribute that says a body too large was read and dropped to its end. */
    static final String READ_TO_ITS_END = "statekit.bodyReadToItsEnd";

    /**
     * Answers 413 a body whose declared length is over the limit, after reading and dropping it when
     * it is at most {@value #DRAIN} bytes: the connection then stays open, and a client still
     * sending reads its answer instead of a connection reset. Jetty's own answer to such a length
     * ({@link SizeLimitHandler}) takes only what has arrived and closes the connection on the rest.
     */
    private static final class DeclaredTooLarge extends Handler.Wrapper {
        private final int maxBody;

        DeclaredTooLarge(Handler next, int maxBody) {
            super(next);
            this.maxBody = maxBody;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) throws Exception {
            long declared = request.getLength();
            if (declared <= maxBody) return super.handle(request, response, callback);
            if (declared <= DRAIN) {
                try (InputStream in = Content.Source.asInputStream(request)) {
                    in.skipNBytes(declared);
                    request.setAttribute(READ_TO_ITS_END, Boolean.TRUE);
                } catch (IOException | RuntimeException e) {
                    // a client that stops sending (or goes away) gets its 413 all the same, if it is still there
                    log.debug("the rest of a body too large was not read: {}", e.toString());
                }
            }
            send(request, response, callback, tooLarge(maxBody).asReply());
            return true;
        }
    }

    /**
     * Answers every error Jetty raises itself (a body too large before it is read, a malformed
     * request line, path or header) in the JSON error shape. (A body declared too large is answered
     * by {@link DeclaredTooLarge} before Jetty sees it.)
     */
    static final class JsonErrors extends ErrorHandler {
        private final int maxBody;

        JsonErrors(int maxBody) {
            this.maxBody = maxBody;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            int status = response.getStatus();
            Object cause = request.getAttribute(ERROR_EXCEPTION);
            if (cause instanceof HttpException h) status = h.getCode();
            send(request, response, callback, error(status, request.getAttribute(ERROR_MESSAGE)).asReply());
            return true;
        }

        private ApiException error(int status, @Nullable Object reason) {
            if (status == 413) return tooLarge(maxBody);
            if (status == 503) return new ApiException(503, "BUSY", "the service is busy; try again");
            String code = status == 400 ? "BAD_REQUEST" : status == 404 ? "NOT_FOUND" : status >= 500 ? "INTERNAL_ERROR" : "HTTP_" + status;
            String message = reason == null ? HttpStatus.getMessage(status) : Router.truncate(reason.toString());
            return new ApiException(status, code, "the request cannot be answered: " + message);
        }
    }

    /** The router's handler: the cross-site and JSON-only checks, routing and error replies. */
    private static final class Dispatch extends Handler.Abstract {
        private final Router router;
        private final int maxBody;

        Dispatch(Router router, int maxBody) {
            this.router = router;
            this.maxBody = maxBody;
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            send(request, response, callback, answer(request));
            return true;
        }

        private Reply answer(Request request) {
            String method = request.getMethod().toUpperCase(Locale.ROOT);
            String path = path(request);
            try {
                boolean changes = !method.equals("GET") && !method.equals("HEAD") && !method.equals("OPTIONS");
                // the body is read before anything is answered, so that the connection stays usable for the next request
                byte[] body = changes ? readBody(request) : new byte[0];
                Router.Match match = router.match(method, path);
                if (changes) checkChange(request);
                Map<String, List<String>> query = query(request);
                Exchange exchange = new Exchange(method, path, match.parameters(), query, request.getHeaders()::get, body);
                return match.route().handle(exchange);
            } catch (ApiException e) {
                return e.asReply();
            } catch (StatekitException e) {
                log.warn("{} {}: the store failed: {}", method, Router.truncate(path), e.getMessage());
                return new ApiException(503, "STORE_UNAVAILABLE", "the store cannot be reached: " + e.getMessage()).asReply();
            } catch (Exception e) {
                log.error("{} {} failed", method, Router.truncate(path), e);
                return new ApiException(500, "INTERNAL_ERROR", "the request failed: " + e).asReply();
            }
        }

        /**
         * Returns the request's decoded path. A path with {@code ;} parameters keeps them in its
         * segments ({@code /items/1;x} is the item {@code 1;x}, not item 1), where Jetty's decoded
         * path drops them.
         */
        private static String path(Request request) {
            String raw = request.getHttpURI().getPath();
            if (raw == null || raw.indexOf(';') < 0) return Request.getPathInContext(request);
            try {
                return URLDecoder.decode(raw.replace("+", "%2B"), StandardCharsets.UTF_8);
            } catch (IllegalArgumentException e) {
                throw new ApiException(400, "BAD_REQUEST", "the path cannot be decoded");
            }
        }

        private void checkChange(Request request) {
            String fetchSite = request.getHeaders().get("Sec-Fetch-Site");
            if (fetchSite != null && fetchSite.equalsIgnoreCase("cross-site")) {
                throw new ApiException(403, "CROSS_SITE_REQUEST", "a page of another site cannot change anything here");
            }
            String origin = request.getHeaders().get("Origin");
            String host = request.getHeaders().get("Host");
            if (origin != null && !origin.equals("null") && host != null) {
                String originHost = origin.replaceFirst("^[a-zA-Z][a-zA-Z0-9+.-]*://", "");
                if (!originHost.equalsIgnoreCase(host)) {
                    throw new ApiException(403, "CROSS_SITE_REQUEST", "a page of " + Router.truncate(origin) + " cannot change anything here");
                }
            } else if ("null".equals(origin)) {
                throw new ApiException(403, "CROSS_SITE_REQUEST", "a page of an opaque origin cannot change anything here");
            }
            String type = request.getHeaders().get("Content-Type");
            String media = type == null ? "" : type.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
            if (!media.equals("application/json")) {
                throw new ApiException(415, "UNSUPPORTED_MEDIA_TYPE",
                        "a request that changes something sends its body as Content-Type: application/json"
                                + (type == null ? "" : ", not " + Router.truncate(type)));
            }
        }

        /** Reads the whole body; Jetty's {@link SizeLimitHandler} fails the read past the limit, answered 413. */
        private byte[] readBody(Request request) throws IOException {
            try (InputStream in = Content.Source.asInputStream(request)) {
                return in.readAllBytes();
            } catch (RuntimeException e) {
                if (e instanceof HttpException h && h.getCode() == 413) throw tooLarge(maxBody);
                throw e;
            }
        }

        private static Map<String, List<String>> query(Request request) {
            Fields fields;
            try {
                fields = Request.extractQueryParameters(request, StandardCharsets.UTF_8);
            } catch (RuntimeException e) {
                throw new ApiException(400, "INVALID_QUERY", "the query string cannot be decoded");
            }
            Map<String, List<String>> query = new LinkedHashMap<>();
            for (Fields.Field f : fields) query.put(f.getName(), f.getValues());
            return query;
        }
    }

    private static ApiException tooLarge(int maxBody) {
        String kib = maxBody % 1024 == 0 ? " (" + maxBody / 1024 + " KiB)" : "";
        return new ApiException(413, "PAYLOAD_TOO_LARGE", "the body is larger than " + maxBody + " bytes" + kib);
    }

    /** Writes {@code reply} with the headers every answer carries. */
    private static void send(Request request, Response response, Callback callback, Reply reply) {
        byte[] bytes;
        String type;
        Object body = reply.body();
        if (reply.contentType() != null) {
            type = reply.contentType();
            bytes = body instanceof byte[] b ? b : String.valueOf(body).getBytes(StandardCharsets.UTF_8);
        } else {
            type = JSON;
            bytes = body == null ? new byte[0] : Json.write(body).getBytes(StandardCharsets.UTF_8);
        }
        response.setStatus(reply.status());
        response.getHeaders().put("Content-Type", type);
        response.getHeaders().put("X-Content-Type-Options", "nosniff");
        response.getHeaders().put("Cache-Control", "no-store");
        response.getHeaders().put("Referrer-Policy", "no-referrer");
        if (type.startsWith("text/html")) {
            response.getHeaders().put("Content-Security-Policy", CSP);
            response.getHeaders().put("X-Frame-Options", "DENY");
        }
        response.getHeaders().put("Content-Length", String.valueOf(bytes.length));
        // a body too large that was left unread: the connection cannot carry another request
        if (reply.status() == 413 && request.getAttribute(READ_TO_ITS_END) == null) response.getHeaders().put("Connection", "close");
        if (request.getMethod().equalsIgnoreCase("HEAD")) {
            response.write(true, null, callback);
        } else {
            response.write(true, ByteBuffer.wrap(bytes), callback);
        }
    }
}
