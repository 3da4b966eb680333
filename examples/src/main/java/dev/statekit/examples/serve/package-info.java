/**
 * The seed systems as services: {@code examples serve SYSTEM} runs one with its seed's HTTP API
 * and a web dashboard at {@code /ui}, on Jetty's server core and Jackson.
 *
 * <p>Its parts: {@link dev.statekit.examples.serve.ServeCommand} (the command line, through
 * {@link dev.statekit.examples.serve.Options}, which both parses and documents every option of
 * {@code serve}, {@code demo} and the services), {@link dev.statekit.examples.serve.Systems} (the
 * served systems' factories), {@link dev.statekit.examples.serve.SystemService} (the one skeleton
 * every seed service follows: a {@code FACTORY} record, the host's engine and runtime, its
 * machines and queues, its periodic passes, one start and one close), the HTTP layer
 * ({@link dev.statekit.examples.serve.HttpServer}, {@link dev.statekit.examples.serve.Router},
 * {@link dev.statekit.examples.serve.Exchange}, {@link dev.statekit.examples.serve.JsonBody},
 * {@link dev.statekit.examples.serve.Reply}, {@link dev.statekit.examples.serve.ApiException}),
 * the helpers routes share ({@link dev.statekit.examples.serve.Fires} for events and refusals,
 * {@link dev.statekit.examples.serve.Idempotency} for request keys), and
 * {@link dev.statekit.examples.serve.ServiceDashboard}, which mounts the published
 * {@code statekit-dashboard} on the router.
 *
 * <p>How a request moves: Jetty's {@code SizeLimitHandler} answers a body over the limit 413;
 * Jetty's {@code QoSHandler} lets at most 6 requests run at once and answers those that waited too
 * long 503; the server's own handler reads the body, finds the route in the {@code Router}
 * (404, 405), checks a change for JSON and for a page of another site (415, 403), and calls the
 * route with an {@code Exchange}. The route reads its parameters and body (400 naming what is
 * wrong), its key through {@code Idempotency}, changes tasks through the host's engine, and turns
 * a refusal into its error through {@code Fires}. Every error, Jetty's own too, is answered in one
 * JSON shape {@code {"error_code", "message", …}}.
 */
@NullMarked
package dev.statekit.examples.serve;

import org.jspecify.annotations.NullMarked;
