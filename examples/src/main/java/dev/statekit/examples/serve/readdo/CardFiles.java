package dev.statekit.examples.serve.readdo;

import com.fasterxml.jackson.databind.JsonNode;
import dev.statekit.core.Task;
import dev.statekit.examples.ReadDoItem;
import dev.statekit.examples.ReadDoItem.State;
import dev.statekit.examples.hosts.ReadDoHost;
import dev.statekit.examples.hosts.ReadDoHost.StepException;
import dev.statekit.examples.hosts.ReadDoHost.Written;
import dev.statekit.examples.serve.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Objects;
import java.util.UUID;

/**
 * Writes the card files of exports: {@code item-ID-HASH.md} in the exports folder, where HASH is
 * the first 16 hex digits of the SHA-256 of the export key, so an item and a key always name the
 * same file. A file that is there already is the export done before (the process may have died
 * before it recorded it): nothing is written again. A new file is written to a temporary file
 * in the same folder, forced to disk, and renamed into place, so a file under its name is always
 * whole; each write appends a line to the export ledger.
 *
 * <p>At the failure rate a write fails: the render (retryable {@code EXPORT_RENDER_FAILED}) or the
 * write (retryable {@code EXPORT_WRITE_FAILED}, the temporary file removed). A card that cannot be
 * rendered (no card of the item's run) fails with {@code EXPORT_RENDER_FAILED}, not retryable, and
 * a real I/O failure with {@code EXPORT_WRITE_FAILED}.
 */
final class CardFiles implements ReadDoHost.CardWriter {
    private final Path dataDir;
    private final Path folder;
    private final Chance failures;
    private final Ledger ledger;
    private final String owner;
    private final Object[] locks = new Object[64];

    CardFiles(Path dataDir, Path folder, Chance failures, Ledger ledger, String owner) throws IOException {
        this.dataDir = dataDir;
        this.folder = Files.createDirectories(folder);
        this.failures = failures;
        this.ledger = ledger;
        this.owner = owner;
        for (int i = 0; i < locks.length; i++) locks[i] = new Object();
    }

    /** Returns the name of the file of {@code exportKey} for item {@code id}. */
    static String fileName(long id, String exportKey) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(exportKey.getBytes(StandardCharsets.UTF_8));
            return "item-" + id + "-" + HexFormat.of().formatHex(digest, 0, 8) + ".md";
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing", e);
        }
    }

    @Override
    public Written write(Task<State> item, String exportKey) throws StepException {
        String name = fileName(item.id(), exportKey);
        Path target = folder.resolve(name);
        String shown = shown(target);
        synchronized (locks[Math.floorMod(name.hashCode(), locks.length)]) {
            if (Files.exists(target)) return new Written(shown, false);
            boolean fails = failures.fails();
            boolean renderFails = fails && Chance.pick(new Boolean[] {true, false});
            if (renderFails) throw new StepException("EXPORT_RENDER_FAILED", "the card template could not be rendered", true);
            String text = render(item, exportKey);
            Path temporary = folder.resolve("." + name + "." + UUID.randomUUID() + ".tmp");
            try {
                try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                    ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
                    while (bytes.hasRemaining()) channel.write(bytes);
                    if (fails) throw new IOException("no space left on the device");
                    channel.force(true);
                }
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
            } catch (IOException e) {
                try {
                    Files.deleteIfExists(temporary);
                } catch (IOException ignored) {
                    // the temporary file stays; it is not an export
                }
                throw new StepException("EXPORT_WRITE_FAILED", "the card file could not be written: " + e.getMessage(), true);
            }
            ledger.append("item=" + item.id() + " key=" + exportKey + " file=" + name + " run=" + item.attribute(ReadDoItem.RUN_ID)
                    + " by=" + owner);
            return new Written(shown, true);
        }
    }

    /** Returns the file as the API shows it: relative to the data folder when it is inside, else absolute. */
    private String shown(Path target) {
        Path absolute = target.toAbsolutePath().normalize();
        return absolute.startsWith(dataDir) ? dataDir.relativize(absolute).toString().replace('\\', '/') : absolute.toString();
    }

    /** Renders the card of the item's run as Markdown. */
    static String render(Task<State> item, String exportKey) throws StepException {
        String runId = item.attribute(ReadDoItem.RUN_ID);
        String cardJson = item.attribute("card");
        if (runId == null || cardJson == null || !runId.equals(item.attribute(ReadDoItem.artifactKey("card")))) {
            throw new StepException("EXPORT_RENDER_FAILED", "the item has no card of its run " + runId, false);
        }
        JsonNode card;
        JsonNode score;
        JsonNode todos;
        try {
            card = Json.mapper().readTree(cardJson);
            score = Json.mapper().readTree(Objects.requireNonNullElse(item.attribute("score"), "{}"));
            todos = Json.mapper().readTree(Objects.requireNonNullElse(item.attribute("todos"), "[]"));
        } catch (IOException e) {
            throw new StepException("EXPORT_RENDER_FAILED", "the card's artifacts are not JSON: " + e.getMessage(), false);
        }
        StringBuilder b = new StringBuilder();
        b.append("# ").append(card.path("title").asText()).append("\n\n");
        b.append(item.attribute(ReadDoHost.URL)).append("\n\n");
        b.append("Score: ").append(score.path("score").asText()).append("/100 (")
                .append(card.path("render_spec").path("priority").asText("normal")).append(" priority)\n\n");
        for (JsonNode reason : score.path("reasons")) b.append("- ").append(reason.asText()).append('\n');
        b.append("\n## Summary\n\n").append(item.attribute("summary")).append("\n\n## Todos\n\n");
        for (JsonNode todo : todos) b.append("- [ ] ").append(todo.path("title").asText()).append(" (").append(todo.path("kind").asText()).append(")\n");
        b.append("\n---\ntemplate ").append(card.path("render_spec").path("template").asText()).append(", run ").append(runId)
                .append(", item ").append(item.id()).append(", export key ").append(exportKey).append('\n');
        return b.toString();
    }
}
