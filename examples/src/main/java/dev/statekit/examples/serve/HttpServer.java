package dev.statekit.examples.serve;

import dev.statekit.store.StatekitException;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import org.eclipse.jetty.io.Content;
import org.eclipse.jetty.server.Handler;
import org.eclipse.jetty.server.Request;
import org.eclipse.jetty.server.Response;
import org.eclipse.jetty.server.Server;
import org.eclipse.jetty.server.ServerConnector;
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
 *   <li>at most {@link Limits#activeRequests} requests run at once; the others wait up to
 *       {@link Limits#queueWait} and are then answered 503, so a flood of requests holds at most
 *       that many of the store's connections and never starves the workers;</li>
 *   <li>a body longer than {@link Limits#maxBody} is answered 413;</li>
 *   <li>a request that changes something (POST, PUT, DELETE, PATCH) must carry its body as
 *       {@code application/json} (415 otherwise), which a form on another site cannot send without
 *       the browser asking this server first (and it never agrees); a browser request marked
 *       {@code Sec-Fetch-Site: cross-site}, or whose {@code Origin} is not this server, is 403;</li>
 *   <li>every answer carries {@code X-Content-Type-Options: nosniff}, no caching, and pages a
 *       content security policy that runs only the service's own scripts.</li>
 * </ul>
 * Errors are answered as JSON {@code {"error_code", "message", …}}: an {@link ApiException} with
 * its status, a store that cannot be reached with 503 {@code STORE_UNAVAILABLE}, anything else 500
 * {@code INTERNAL_ERROR} (logged).
 */
public final class HttpServer implements AutoCloseable {
    private static final Logger log = LoggerFactory.getLogger(HttpServer.class);
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
        server.setHandler(new Dispatch(router, limits));
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

    /** The one handler: limits, checks, routing and error replies. */
    private static final class Dispatch extends Handler.Abstract {
        private final Router router;
        private final Limits limits;
        private final Semaphore active;

        Dispatch(Router router, Limits limits) {
            this.router = router;
            this.limits = limits;
            this.active = new Semaphore(limits.activeRequests(), true);
        }

        @Override
        public boolean handle(Request request, Response response, Callback callback) {
            Reply reply;
            boolean acquired = false;
            try {
                acquired = active.tryAcquire(limits.queueWait().toMillis(), TimeUnit.MILLISECONDS);
                reply = acquired ? answer(request) : new ApiException(503, "BUSY", "the service is busy; try again").asReply();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                reply = new ApiException(503, "BUSY", "the service is stopping").asReply();
            } finally {
                if (acquired) active.release();
            }
            write(request, response, callback, reply);
            return true;
        }

        private Reply answer(Request request) {
            String method = request.getMethod().toUpperCase(Locale.ROOT);
            String path = Request.getPathInContext(request);
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

        private byte[] readBody(Request request) throws IOException {
            long declared = request.getLength();
            try (InputStream in = Content.Source.asInputStream(request)) {
                if (declared > limits.maxBody()) {
                    drain(in, declared);
                    throw tooLarge();
                }
                byte[] bytes = in.readNBytes(limits.maxBody() + 1);
                if (bytes.length > limits.maxBody()) {
                    drain(in, -1);
                    throw tooLarge();
                }
                return bytes;
            }
        }

        /**
         * Reads and drops the rest of a body too large to accept, up to {@value #DRAIN} bytes, so
         * that the client, still sending, reads the 413 instead of a broken connection; a larger
         * body is left unread, and the 413 closes the connection.
         */
        private static void drain(InputStream in, long declared) {
            if (declared > DRAIN) return;
            long left = DRAIN;
            byte[] buffer = new byte[8192];
            int n;
            try {
                while (left > 0 && (n = in.read(buffer, 0, (int) Math.min(buffer.length, left))) > 0) left -= n;
            } catch (IOException | RuntimeException e) {
                // a client that stops sending (or goes away) gets its 413 all the same, if it is still there
                log.debug("the rest of a body too large was not read: {}", e.toString());
            }
        }

        private ApiException tooLarge() {
            return new ApiException(413, "PAYLOAD_TOO_LARGE", "the body is larger than " + limits.maxBody() + " bytes");
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

        private static void write(Request request, Response response, Callback callback, Reply reply) {
            byte[] bytes;
            String type;
            Object body = reply.body();
            if (reply.contentType() != null) {
                type = reply.contentType();
                bytes = body instanceof byte[] b ? b : String.valueOf(body).getBytes(StandardCharsets.UTF_8);
            } else {
                type = "application/json; charset=utf-8";
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
            // a body too large to read is left unread: the connection cannot carry another request
            if (reply.status() == 413) response.getHeaders().put("Connection", "close");
            if (request.getMethod().equalsIgnoreCase("HEAD")) {
                response.write(true, null, callback);
            } else {
                response.write(true, ByteBuffer.wrap(bytes), callback);
            }
        }
    }

}
