package dev.statekit.store.support;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

/** The claim order and anti-starvation, without a store. */
class ClaimPickerTest {

    /** A runnable task: its id is its FIFO position. */
    record Task(int id, int priority) {}

    /** Candidates over a list; a task in {@code vanishing} stops being runnable when it is taken. */
    static final class Listed implements ClaimPicker.Candidates<Task, RuntimeException> {
        final List<Task> runnable = new ArrayList<>();
        final Set<Integer> vanishing = new HashSet<>();
        final List<Integer> taken = new ArrayList<>();
        final List<Integer> lowerAsked = new ArrayList<>();

        Listed(int... priorities) {
            for (int i = 0; i < priorities.length; i++) runnable.add(new Task(i + 1, priorities[i]));
            runnable.sort(Comparator.comparingInt(Task::priority).reversed().thenComparingInt(Task::id));
        }

        @Override
        public @Nullable Task top() {
            return runnable.isEmpty() ? null : runnable.get(0);
        }

        @Override
        public @Nullable Task lower(int priority) {
            lowerAsked.add(priority);
            for (Task t : runnable) if (t.priority() < priority) return t;
            return null;
        }

        @Override
        public int priority(Task candidate) {
            return candidate.priority();
        }

        @Override
        public boolean take(Task candidate) {
            runnable.remove(candidate);
            if (vanishing.contains(candidate.id())) return false;
            taken.add(candidate.id());
            return true;
        }

        @Override
        public void pass(Task candidate) {
            runnable.remove(candidate);
        }
    }

    @Test
    void takesByPriorityThenFifoUpToTheRoom() {
        Listed c = new Listed(0, 5, 5, 10, 0, -3);
        assertThat(ClaimPicker.pick(c, 2, 0, 0)).isEqualTo(2);
        assertThat(c.taken).containsExactly(4, 2);
        assertThat(ClaimPicker.pick(c, 10, 0, 0)).isZero();
        assertThat(c.taken).containsExactly(4, 2, 3, 1, 5, 6);
    }

    @Test
    void afterKPicksThatPassedOverALowerTaskTheBestLowerOneIsTaken() {
        Listed c = new Listed(10, 0, 10, 5, 10, 0, 10);
        int skipped = ClaimPicker.pick(c, 1, 0, 2);
        assertThat(c.taken).containsExactly(1);
        assertThat(skipped).isEqualTo(1);
        skipped = ClaimPicker.pick(c, 1, skipped, 2);
        assertThat(skipped).isEqualTo(2);
        skipped = ClaimPicker.pick(c, 1, skipped, 2);
        assertThat(c.taken).as("the best lower task").containsExactly(1, 3, 4);
        assertThat(skipped).isZero();
        skipped = ClaimPicker.pick(c, 4, skipped, 2);
        assertThat(c.taken).containsExactly(1, 3, 4, 5, 7, 2, 6);
        assertThat(skipped).isZero();
    }

    @Test
    void theCountCarriesOnWithinOneClaimAndIsReturnedToStore() {
        Listed c = new Listed(10, 10, 10, 0, 0, 10);
        int skipped = ClaimPicker.pick(c, 4, 0, 2);
        assertThat(c.taken).containsExactly(1, 2, 4, 3);
        assertThat(skipped).isEqualTo(1);
        assertThat(ClaimPicker.pick(c, 4, skipped, 2)).isZero();
        assertThat(c.taken).containsExactly(1, 2, 4, 3, 6, 5);
    }

    @Test
    void withoutALimitLowerTasksWaitAndTheCountStillGrows() {
        Listed c = new Listed(0, 10, 5, 10, 10);
        assertThat(ClaimPicker.pick(c, 3, 7, 0)).isEqualTo(10);
        assertThat(c.taken).containsExactly(2, 4, 5);
        assertThat(ClaimPicker.pick(c, 5, 10, 0)).isZero();
        assertThat(c.taken).containsExactly(2, 4, 5, 3, 1);
    }

    @Test
    void aPickThatPassesOverNoLowerTaskResetsTheCount() {
        Listed c = new Listed(10, 10);
        assertThat(ClaimPicker.pick(c, 1, 5, 9)).isZero();
        assertThat(c.lowerAsked).containsExactly(10);
    }

    @Test
    void aCandidateThatCouldNotBeTakenLeavesItsRoomToTheNext() {
        Listed c = new Listed(5, 5, 5, 5);
        c.vanishing.add(2);
        ClaimPicker.pick(c, 2, 0, 0);
        assertThat(c.taken).containsExactly(1, 3);
        assertThat(c.runnable).extracting(Task::id).containsExactly(4);
    }

    @Test
    void noRoomTakesNothingAndKeepsTheStoredCount() {
        Listed c = new Listed(5, 0);
        assertThat(ClaimPicker.pick(c, 0, 3, 1)).isEqualTo(3);
        assertThat(ClaimPicker.pick(c, -2, 3, 1)).isEqualTo(3);
        assertThat(c.taken).isEmpty();
        assertThat(c.lowerAsked).isEmpty();
        Listed empty = new Listed();
        assertThat(ClaimPicker.pick(empty, 5, 3, 1)).isEqualTo(3);
    }

    @Test
    void theStoresFailurePassesThrough() {
        ClaimPicker.Candidates<Task, IOException> failing = new ClaimPicker.Candidates<>() {
            @Override
            public @Nullable Task top() throws IOException {
                throw new IOException("disk gone");
            }

            @Override
            public @Nullable Task lower(int priority) {
                return null;
            }

            @Override
            public int priority(Task candidate) {
                return candidate.priority();
            }

            @Override
            public boolean take(Task candidate) {
                return true;
            }

            @Override
            public void pass(Task candidate) {
            }
        };
        assertThatThrownBy(() -> ClaimPicker.pick(failing, 1, 0, 0)).isInstanceOf(IOException.class).hasMessage("disk gone");
    }
}
