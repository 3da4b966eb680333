package dev.statekit.jdbc.internal;

import dev.statekit.jdbc.Dialect;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The versioned schema shipped as resources, one file per dialect and version, each version adding
 * to the ones before: loading, filling in the prefix, applying.
 */
public final class Schema {
    /** The schema version this code reads and writes. */
    public static final int VERSION = 4;
    /** The placeholder that stands for the table prefix in the resources. */
    public static final String PLACEHOLDER = "${prefix}";

    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,30}");

    private Schema() {
    }

    /** Returns null when {@code prefix} is a valid table prefix, else why it is not. */
    public static @org.jspecify.annotations.Nullable String checkPrefix(String prefix) {
        if (PREFIX.matcher(prefix).matches()) return null;
        return "table prefix '" + prefix + "' is invalid: it must match [a-z][a-z0-9_]{0,30} (a lower-case letter, then"
                + " at most 30 lower-case letters, digits or underscores), for example statekit_";
    }

    /**
     * Returns the schema text of {@code dialect} with {@code prefix} filled in.
     *
     * @throws IllegalArgumentException if the prefix is invalid
     */
    public static String ddl(Dialect dialect, String prefix) {
        String problem = checkPrefix(prefix);
        if (problem != null) throw new IllegalArgumentException(problem);
        return template(dialect).replace(PLACEHOLDER, prefix);
    }

    /** Returns the schema resources of {@code dialect} as shipped, placeholder included: every version, in order. */
    public static String template(Dialect dialect) {
        StringBuilder text = new StringBuilder();
        for (int version = 1; version <= VERSION; version++) {
            if (version > 1) text.append('\n');
            text.append(resource(dialect.schemaResource(version)));
        }
        return text.toString();
    }

    private static String resource(String path) {
        try (InputStream in = Schema.class.getClassLoader().getResourceAsStream(path)) {
            if (in == null) throw new IllegalStateException("schema resource " + path + " is missing from the classpath");
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read schema resource " + path, e);
        }
    }

    /** Splits schema text into statements: comment lines dropped, statements end with a semicolon at the end of a line. */
    public static List<String> statements(String ddl) {
        List<String> result = new ArrayList<>();
        StringBuilder current = new StringBuilder();
        for (String line : ddl.split("\r?\n")) {
            String trimmed = line.strip();
            if (trimmed.isEmpty() || trimmed.startsWith("--")) continue;
            if (current.length() > 0) current.append('\n');
            if (trimmed.endsWith(";")) {
                current.append(line, 0, line.lastIndexOf(';'));
                result.add(current.toString().strip());
                current.setLength(0);
            } else {
                current.append(line);
            }
        }
        if (!current.toString().isBlank()) result.add(current.toString().strip());
        return result;
    }

    /**
     * Applies the schema on {@code connection}, which must be in auto-commit mode. On PostgreSQL
     * the statements run in one transaction under an advisory lock, so that processes starting
     * together do not trip over each other; H2 commits each statement.
     */
    public static void apply(Connection connection, Dialect dialect, String prefix) throws SQLException {
        List<String> statements = statements(ddl(dialect, prefix));
        if (dialect == Dialect.POSTGRESQL) {
            connection.setAutoCommit(false);
            try {
                try (PreparedStatement lock = connection.prepareStatement("select pg_advisory_xact_lock(?)")) {
                    lock.setLong(1, 0x5354_4b00_0000_0000L ^ prefix.hashCode());
                    lock.executeQuery().close();
                }
                try (Statement s = connection.createStatement()) {
                    for (String sql : statements) s.execute(sql);
                }
                connection.commit();
            } catch (SQLException | RuntimeException e) {
                try {
                    connection.rollback();
                } catch (SQLException suppressed) {
                    e.addSuppressed(suppressed);
                }
                throw e;
            } finally {
                connection.setAutoCommit(true);
            }
        } else {
            try (Statement s = connection.createStatement()) {
                for (String sql : statements) s.execute(sql);
            }
        }
    }
}
