package dev.statekit.examples.serve.etl;

import dev.statekit.examples.StartFailure;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.ThreadLocalRandom;

/**
 * The service's files under its data folder: the OCR artifacts ({@code artifacts/<task>/mineru-<attempt>.md}),
 * the final JSON of each task ({@code results/<task>.json}), the ledgers the simulated external
 * services append to ({@code ledger/mineru.log}, {@code ledger/llm.log}) and the folder
 * submissions name their {@code path} in.
 *
 * <p>A file's key is its path relative to the data folder, as the seed's S3 key is. Every
 * artifact and result is written to a temporary file and renamed into place, so a reader sees the
 * whole file or none, and a crash leaves at most a temporary file, never a torn one. Thread-safe;
 * several processes may share the folder (the ledgers are appended line by line).
 */
final class EtlFiles {
    /** The folder of the OCR artifacts. */
    static final String ARTIFACTS = "artifacts";
    /** The folder of the final JSON of each task. */
    static final String RESULTS = "results";
    /** The ledger of the simulated MineRU: one line per call. */
    static final String MINERU_LEDGER = "ledger/mineru.log";
    /** The ledger of the simulated LLM: one line per call. */
    static final String LLM_LEDGER = "ledger/llm.log";
    /** The largest input file an OCR job reads. */
    static final long MAX_INPUT_BYTES = 16L << 20;

    private final Path data;
    private final Path inputs;

    /**
     * Creates the files of the service in {@code data}, with submissions' paths read from {@code inputs}.
     *
     * @throws IOException when the folders cannot be created
     */
    EtlFiles(Path data, Path inputs) throws IOException {
        this.data = data.toAbsolutePath().normalize();
        this.inputs = inputs.toAbsolutePath().normalize();
        Files.createDirectories(this.data.resolve(ARTIFACTS));
        Files.createDirectories(this.data.resolve(RESULTS));
        Files.createDirectories(this.data.resolve("ledger"));
        Files.createDirectories(this.inputs);
    }

    /** Returns the data folder. */
    Path data() {
        return data;
    }

    /** Returns the folder submissions name their {@code path} in. */
    Path inputs() {
        return inputs;
    }

    /** Returns the key of the markdown of OCR attempt {@code attempt} of task {@code id}. */
    static String artifactKey(long id, int attempt) {
        return ARTIFACTS + "/" + id + "/mineru-" + attempt + ".md";
    }

    /** Returns the key of the final JSON of task {@code id}. */
    static String resultKey(long id) {
        return RESULTS + "/" + id + ".json";
    }

    /**
     * Returns the file of {@code key}.
     *
     * @throws IllegalArgumentException when {@code key} leads out of the data folder
     */
    Path file(String key) {
        Path file = data.resolve(key).normalize();
        if (!file.startsWith(data) || file.equals(data)) throw new IllegalArgumentException("the key " + key + " is not a file of the data folder");
        return file;
    }

    /** Returns whether the file of {@code key} exists. */
    boolean exists(String key) {
        return Files.isRegularFile(file(key));
    }

    /** Returns the text of the file of {@code key}, if it exists. */
    Optional<String> read(String key) throws IOException {
        try {
            return Optional.of(Files.readString(file(key), StandardCharsets.UTF_8));
        } catch (NoSuchFileException e) {
            return Optional.empty();
        }
    }

    /**
     * Writes {@code text} as the file of {@code key}: to a temporary file beside it, forced to the
     * disk, then renamed into place in one step.
     */
    void writeAtomically(String key, String text) throws IOException {
        Path target = file(key);
        Files.createDirectories(target.getParent());
        Path temp = target.resolveSibling("." + target.getFileName() + "." + Long.toString(ThreadLocalRandom.current().nextLong() & Long.MAX_VALUE, 36) + ".tmp");
        try {
            try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
                ByteBuffer bytes = ByteBuffer.wrap(text.getBytes(StandardCharsets.UTF_8));
                while (bytes.hasRemaining()) channel.write(bytes);
                channel.force(true);
            }
            try {
                Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            } catch (AtomicMoveNotSupportedException e) {
                Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING);
            }
        } finally {
            Files.deleteIfExists(temp);
        }
    }

    /** Appends {@code line} and a line break to the ledger {@code key} in one write (whole lines even when processes share it). */
    void append(String key, String line) throws IOException {
        Path file = file(key);
        byte[] bytes = (line + "\n").getBytes(StandardCharsets.UTF_8);
        try (FileChannel channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND)) {
            ByteBuffer buffer = ByteBuffer.wrap(bytes);
            while (buffer.hasRemaining()) channel.write(buffer);
            channel.force(false);
        }
    }

    /**
     * Returns the input file {@code path} names, relative to the inputs folder, as the relative
     * path to record.
     *
     * @throws IllegalArgumentException saying why it cannot be read: outside the folder, missing, not a file
     */
    String inputPath(String path) {
        Path relative;
        try {
            relative = Path.of(path);
        } catch (RuntimeException e) {
            throw new IllegalArgumentException("is not a path");
        }
        if (relative.isAbsolute()) throw new IllegalArgumentException("must be relative to the inputs folder");
        Path file = inputs.resolve(relative).normalize();
        if (!file.startsWith(inputs) || file.equals(inputs)) throw new IllegalArgumentException("must name a file inside the inputs folder");
        try {
            Path real = file.toRealPath();
            if (!real.startsWith(inputs.toRealPath())) throw new IllegalArgumentException("must name a file inside the inputs folder");
            if (!Files.isRegularFile(real)) throw new IllegalArgumentException("is not a file");
            if (Files.size(real) > MAX_INPUT_BYTES) throw new IllegalArgumentException("names a file larger than " + (MAX_INPUT_BYTES >> 20) + " MiB");
        } catch (NoSuchFileException e) {
            throw new IllegalArgumentException("names no file in the inputs folder");
        } catch (IOException e) {
            throw new IllegalArgumentException("cannot be read: " + StartFailure.reason(e));
        }
        return inputs.relativize(file).toString().replace('\\', '/');
    }

    /**
     * Reads the input file at {@code relative} (as {@link #inputPath} returned it).
     *
     * @throws StageFailure {@code INPUT_MISSING} or {@code INPUT_UNREADABLE} naming the input as the submission gave it and
     *                      the system's reason ({@code No such file or directory}, {@code Permission denied}),
     *                      never the server's path of the inputs folder
     */
    byte[] readInput(String relative) throws StageFailure {
        Path file = inputs.resolve(relative).normalize();
        if (!file.startsWith(inputs)) throw new IllegalArgumentException("the input " + relative + " is outside the inputs folder");
        try {
            if (Files.size(file) > MAX_INPUT_BYTES) {
                throw new IllegalArgumentException("the input " + relative + " is larger than " + (MAX_INPUT_BYTES >> 20) + " MiB");
            }
            return Files.readAllBytes(file);
        } catch (NoSuchFileException e) {
            throw new StageFailure("INPUT_MISSING", "the input " + relative + " is gone from the inputs folder: " + StartFailure.reason(e));
        } catch (IOException e) {
            throw new StageFailure("INPUT_UNREADABLE", "the input " + relative + " cannot be read: " + StartFailure.reason(e));
        }
    }

    /**
     * Returns {@code message} without the server's folders: a path in the inputs folder as
     * relative to it (as a submission gives it), one in the data folder as relative to that.
     */
    String withoutFolders(String message) {
        String separator = inputs.getFileSystem().getSeparator();
        return message.replace(inputs + separator, "").replace(inputs.toString(), "the inputs folder")
                .replace(data + separator, "").replace(data.toString(), "the data folder");
    }

    /** Returns a short lower-case hex digest of {@code text} (SHA-256). */
    static String sha256(String text) {
        try {
            byte[] digest = java.security.MessageDigest.getInstance("SHA-256").digest(text.getBytes(StandardCharsets.UTF_8));
            StringBuilder b = new StringBuilder();
            for (byte d : digest) b.append(String.format(Locale.ROOT, "%02x", d));
            return b.toString();
        } catch (java.security.NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is missing", e);
        }
    }
}
