package dev.statekit.examples.serve.readdo;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A log file the service appends one line to per external call (the pipeline's calls, the exports'
 * writes): what was done for which item, in which run, by which process. It is the record an
 * operator reads to see what was done twice; a line that cannot be written is logged, and the work
 * goes on.
 */
final class Ledger {
    private static final Logger log = LoggerFactory.getLogger(Ledger.class);

    private final Path file;

    Ledger(Path file) throws IOException {
        Files.createDirectories(file.toAbsolutePath().getParent());
        this.file = file;
    }

    /** Appends {@code line}. */
    synchronized void append(String line) {
        try {
            Files.writeString(file, line + "\n", StandardCharsets.UTF_8, StandardOpenOption.CREATE, StandardOpenOption.APPEND);
        } catch (IOException e) {
            log.warn("cannot append to {}: {}", file, e.toString());
        }
    }
}
