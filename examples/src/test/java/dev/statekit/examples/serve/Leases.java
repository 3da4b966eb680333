package dev.statekit.examples.serve;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * The leases of a service's tasks, read through its dashboard's JSON API ({@code /ui/api/tasks}):
 * what a killed process held, and that a restart on the same data folder took all of it back at
 * start, before any of those leases expired.
 */
public final class Leases {
    private Leases() {}

    /**
     * A task's lease.
     *
     * @param task      the task's id
     * @param owner     the lease's owner
     * @param expiresAt when it expires unless renewed
     */
    public record Held(long task, String owner, Instant expiresAt) {}

    /** Returns the leases of every task of the service {@code api} talks to. */
    public static List<Held> of(ApiClient api) {
        List<Held> held = new ArrayList<>();
        String after = "0";
        while (true) {
            ApiClient.Response page = api.get("/ui/api/tasks?limit=200&after=" + after);
            assertThat(page.status()).as(page.text()).isEqualTo(200);
            for (JsonNode t : page.json().path("items")) {
                JsonNode lease = t.path("lease");
                if (lease.isObject()) {
                    held.add(new Held(t.path("id").asLong(), lease.path("owner").asText(), Instant.parse(lease.path("expiresAt").asText())));
                }
            }
            JsonNode next = page.json().path("nextAfter");
            if (next.isNull() || next.isMissingNode()) return held;
            after = next.asText();
        }
    }

    /**
     * Asserts that none of the tasks {@code api}'s service holds is leased by an owner of
     * {@code before} (what a killed process held), and that the check ran before the first of
     * those leases would have expired: the restart took them back, their expiry did not.
     */
    public static void assertTakenBackAtStart(ApiClient api, List<Held> before) {
        assertThat(before).as("leases held when the process died").isNotEmpty();
        Set<String> dead = before.stream().map(Held::owner).collect(Collectors.toSet());
        List<Held> now = of(api);
        Instant checked = Instant.now();
        assertThat(now).as("leases of the dead process %s after the restart", dead).noneMatch(h -> dead.contains(h.owner()));
        Instant firstExpiry = before.stream().map(Held::expiresAt).min(Comparator.naturalOrder()).orElseThrow();
        assertThat(checked).as("checked before the dead process's leases expired").isBefore(firstExpiry);
    }
}
