package dev.statekit.examples.serve;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Every service's id path segments, as the docs promise them: an id that is not a positive integer
 * is 400 {@code INVALID_ID} naming the parameter. A {@code ;} path parameter ({@code /items/1;DROP%20TABLE}),
 * which Jetty's decoded path drops, stays part of the segment, so the request is refused, not
 * answered as id 1 (which would be 404 here, the store being empty, or 200 once it exists).
 */
class IdPathSegmentsTest {
    @TempDir
    Path data;

    /**
     * A service and its id routes.
     *
     * @param system    the system's name
     * @param parameter the name of its id parameter
     * @param get       a GET route with the id last, {@code ID} in its place
     * @param post      a POST route with the id in it, {@code ID} in its place
     */
    record Case(String system, String parameter, String get, String post) {}

    static final List<Case> CASES = List.of(
            new Case("novel-proofer", "id", "/jobs/ID", "/jobs/ID/pause"),
            new Case("read-do", "id", "/items/ID", "/items/ID/archive"),
            new Case("etl", "task_id", "/api/v1/etl/tasks/ID", "/api/v1/etl/tasks/ID/cancel"),
            new Case("compression", "id", "/api/tasks/ID", "/api/tasks/ID/pause"));

    @Test
    void anIdThatIsNotAPositiveIntegerIs400InEveryServiceSemicolonParametersIncluded() throws Exception {
        for (Case c : CASES) {
            try (ServeCommand.Running running = ServeCommand.start(List.of(c.system(), "--port", "0", "--data", data.resolve(c.system()).toString(),
                    "--in-memory"), new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))) {
                ApiClient api = new ApiClient(running.base());
                for (String id : List.of("1;DROP%20TABLE", "1;", "1%3Bx", "1;x=2", "0", "-1", "x")) {
                    assertInvalid(c, api.get(c.get().replace("ID", id)), c.parameter(), "GET " + c.get() + " with " + id);
                    assertInvalid(c, api.post(c.post().replace("ID", id), "{}"), c.parameter(), "POST " + c.post() + " with " + id);
                }
                assertInvalid(c, api.get("/ui/api/tasks/1;DROP%20TABLE"), "id", "the dashboard's task");
                assertThat(api.get(c.get().replace("ID", "1")).status()).as(c.system() + ": a plain id is read").isEqualTo(404);
            }
        }
    }

    private static void assertInvalid(Case c, ApiClient.Response r, String parameter, String what) {
        assertThat(r.status()).as(c.system() + ": " + what + ": " + r.text()).isEqualTo(400);
        assertThat(r.field("error_code")).as(c.system() + ": " + what).isEqualTo("INVALID_ID");
        assertThat(r.field("field")).as(c.system() + ": " + what).isEqualTo(parameter);
    }
}
