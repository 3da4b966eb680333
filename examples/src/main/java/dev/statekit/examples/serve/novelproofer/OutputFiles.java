package dev.statekit.examples.serve.novelproofer;

import dev.statekit.core.spi.Clock;
import dev.statekit.examples.serve.Json;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.text.Normalizer;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import java.util.UUID;

/**
 * The merged outputs: one file per job, {@code output/<job id>-<title slug>.txt} under the data
 * folder, written once. A write goes to a temporary file in the same folder, is forced to disk, and
 * is then linked to its name, which fails when the name exists: whatever processes write the same
 * job at whatever instant, and whatever dies in between, the file appears once, whole, and is never
 * written over. Each file written is recorded as a line of {@code outputs.log} beside the folder.
 */
final class OutputFiles {
    /** The folder of the outputs, relative to the data folder. */
    static final String FOLDER = "output";
    /** The journal of the files written, relative to the data folder. */
    static final String JOURNAL = "outputs.log";

    private final Path dataDir;
    private final Path folder;
    private final Clock clock;
    private final String owner;

    OutputFiles(Path dataDir, Clock clock, String owner) throws IOException {
        this.dataDir = dataDir;
        this.folder = dataDir.resolve(FOLDER);
        this.clock = clock;
        this.owner = owner;
        Files.createDirectories(folder);
    }

    /** Returns the path of {@code job}'s output relative to the data folder, e.g. {@code output/7-the-ferry.txt}. */
    static String relativePath(long job, String title) {
        return FOLDER + "/" + job + "-" + slug(title) + ".txt";
    }

    /** Returns {@code title} as a file name part: letters and digits (of any script) in lower case, joined by {@code -}; at most 60 characters. */
    static String slug(String title) {
        String decomposed = Normalizer.normalize(title, Normalizer.Form.NFKD).replaceAll("\\p{M}+", "");
        String slug = decomposed.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{N}]+", "-").replaceAll("^-+|-+$", "");
        if (slug.length() > 60) slug = slug.substring(0, 60).replaceAll("-+$", "");
        return slug.isEmpty() ? "job" : slug;
    }

    /** Returns the absolute path of a path relative to the data folder. */
    Path resolve(String relative) {
        return dataDir.resolve(relative);
    }

    /**
     * Writes {@code text} as the output of {@code job}, unless its file exists.
     *
     * @return whether this call wrote it
     */
    boolean writeOnce(long job, String relative, String text) throws IOException {
        Path target = dataDir.resolve(relative);
        if (Files.exists(target)) return false;
        Path temporary = folder.resolve("." + job + "-" + UUID.randomUUID() + ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) channel.write(bytes);
                channel.force(true);
            }
            try {
                Files.createLink(target, temporary);
            } catch (FileAlreadyExistsException e) {
                return false;
            } catch (UnsupportedOperationException e) {
                // A file system without hard links: an atomic rename, after the check above.
                if (Files.exists(target)) return false;
                Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE);
            }
        } finally {
            Files.deleteIfExists(temporary);
        }
        Map<String, Object> line = new LinkedHashMap<>();
        line.put("at", clock.now().toString());
        line.put("owner", owner);
        line.put("job", job);
        line.put("file", relative);
        line.put("chars", text.length());
        Files.write(dataDir.resolve(JOURNAL), (Json.write(line) + "\n").getBytes(StandardCharsets.UTF_8),
                StandardOpenOption.CREATE, StandardOpenOption.APPEND, StandardOpenOption.WRITE);
        return true;
    }
}
