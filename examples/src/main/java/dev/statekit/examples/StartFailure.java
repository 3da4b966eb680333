package dev.statekit.examples;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.util.Locale;

/**
 * A failure to start that waiting cannot mend: no such database, wrong credentials, no driver for
 * the URL, a database file another process holds, a folder that cannot be written, a port in use.
 * Its message is one line: what could not be done, the cause in the database's or the system's own
 * words, and which option to change. The command prints that line alone; the cause's stack trace
 * is logged at DEBUG.
 */
public final class StartFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** What kind of failure it is. */
    public enum Kind {
        /** The database named in the URL does not exist (on MariaDB, or the user may not use it: it says the same of both). */
        NO_DATABASE,
        /** The database refused the user or the password. */
        CREDENTIALS,
        /** No JDBC driver on the class path accepts the URL. */
        NO_DRIVER,
        /** Another process holds the database file. */
        IN_USE,
        /** A folder or file cannot be written. */
        NOT_WRITABLE,
        /** The HTTP port is in use or cannot be bound. */
        PORT,
        /** The database did not answer within the wait. */
        UNREACHABLE,
        /** Any other refusal of the database. */
        OTHER
    }

    private final Kind kind;
    private final String what;
    private final String reason;
    private final String remedy;

    /**
     * Creates the failure.
     *
     * @param kind   what kind of failure it is
     * @param what   what could not be done, e.g. {@code cannot open PostgreSQL at URL}
     * @param reason the cause in the database's or the system's own words
     * @param remedy what to do, naming the option to change
     * @param cause  the exception it comes from, or null
     */
    public StartFailure(Kind kind, String what, String reason, String remedy, @org.jspecify.annotations.Nullable Throwable cause) {
        super(oneLine(what + ": " + reason + "; " + remedy), cause);
        this.kind = kind;
        this.what = what;
        this.reason = reason;
        this.remedy = remedy;
    }

    /** Returns what kind of failure it is. */
    public Kind kind() {
        return kind;
    }

    /** Returns the cause in the database's or the system's own words. */
    public String reason() {
        return reason;
    }

    /** Returns this failure with {@code remedy} as what to do. */
    public StartFailure withRemedy(String remedy) {
        return new StartFailure(kind, what, reason, remedy, getCause());
    }

    /** Returns {@code text} on one line: every run of white space, line breaks included, as one space. */
    static String oneLine(String text) {
        return text.replaceAll("\\s+", " ").trim();
    }

    /**
     * Returns the system's own words for {@code e}, without the path it names: the reason the
     * operating system gave ({@code Permission denied}, {@code Read-only file system},
     * {@code Operation not permitted}, {@code Address already in use}), which Java leaves out of
     * some exceptions and is here said as the system says it.
     */
    public static String reason(IOException e) {
        if (e instanceof FileSystemException f) {
            if (f.getReason() != null) return oneLine(f.getReason());
            if (f instanceof AccessDeniedException) return "Permission denied";
            if (f instanceof NoSuchFileException) return "No such file or directory";
            if (f instanceof FileAlreadyExistsException) return "File exists";
            if (f instanceof NotDirectoryException) return "Not a directory";
            return f.getClass().getSimpleName().replaceAll("([a-z])([A-Z])", "$1 $2").replace(" Exception", "").toLowerCase(Locale.ROOT);
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : oneLine(e.getMessage());
    }
}
