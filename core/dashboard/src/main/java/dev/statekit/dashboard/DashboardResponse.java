package dev.statekit.dashboard;

import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * What the dashboard answers: a status, a content type, the headers every answer carries (no
 * caching, no sniffing; for the page a content security policy that runs only its own scripts)
 * and the body.
 *
 * @param status      the HTTP status
 * @param contentType the body's content type
 * @param headers     the other headers to send
 * @param body        the body's bytes (sent for every method but {@code HEAD})
 */
public record DashboardResponse(int status, String contentType, Map<String, String> headers, byte[] body) {
    /** Copies the headers and the body. */
    public DashboardResponse {
        headers = Map.copyOf(headers);
        body = body.clone();
    }

    /**
     * Returns the body.
     *
     * @return a copy of the body's bytes
     */
    @Override
    public byte[] body() {
        return body.clone();
    }

    /**
     * Returns the body as text.
     *
     * @return the body decoded as UTF-8
     */
    public String text() {
        return new String(body, StandardCharsets.UTF_8);
    }

    /**
     * Returns a string that names the status and the content type.
     *
     * @return the response, without its body
     */
    @Override
    public String toString() {
        return "DashboardResponse[" + status + " " + contentType + ", " + body.length + " bytes]";
    }

    /**
     * Returns whether {@code o} is a response of the same status, type, headers and body.
     *
     * @param o another object
     * @return whether they are equal
     */
    @Override
    public boolean equals(Object o) {
        return o instanceof DashboardResponse r && r.status == status && r.contentType.equals(contentType) && r.headers.equals(headers)
                && java.util.Arrays.equals(r.body, body);
    }

    /**
     * Returns a hash of the status, the type, the headers and the body.
     *
     * @return the hash
     */
    @Override
    public int hashCode() {
        return ((status * 31 + contentType.hashCode()) * 31 + headers.hashCode()) * 31 + java.util.Arrays.hashCode(body);
    }
}
