package dev.statekit.store;

import java.util.List;
import org.jspecify.annotations.Nullable;

/**
 * One page of a query.
 *
 * @param items  the tasks on this page, in ascending id order
 * @param nextAfterId pass to {@link TaskQuery#after(long)} for the next page; null on the last page
 * @param <T> the item type
 */
public record Page<T>(List<T> items, @Nullable Long nextAfterId) {
    /** Creates a page. */
    public Page {
        items = List.copyOf(items);
    }

    /** Returns whether more pages follow. */
    public boolean hasNext() {
        return nextAfterId != null;
    }
}
