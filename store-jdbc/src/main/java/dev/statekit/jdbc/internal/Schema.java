package dev.statekit.jdbc.internal;

import dev.statekit.jdbc.Dialect;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.jspecify.annotations.Nullable;

/**
 * The versioned schema shipped as resources, one file per dialect and version, each version adding
 * to the ones before: loading, filling in the prefix, applying.
 */
public final class Schema {
    /** The schema version this code reads and writes. */
    public static final int VERSION = 7;
    /** The versions this build ships, in order; the last is {@link #VERSION}. */
    public static final List<Integer> VERSIONS = List.of(1, 2, 3, 4, 5, 6, 7);
    /** The placeholder that stands for the table prefix in the resources. */
    public static final String PLACEHOLDER = "${prefix}";

    private static final Pattern PREFIX = Pattern.compile("[a-z][a-z0-9_]{0,30}");

    private Schema() {
    }

    /** Returns null when {@code prefix} is a valid table prefix, else why it is not. */
    public static @Nullable String checkPrefix(String prefix) {
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
        for (int version : VERSIONS) {
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
     * the statements run in one transaction under an advisory lock, and on MariaDB (whose DDL
     * commits each statement) under a named lock, so that processes starting together do not trip
     * over each other; H2 commits each statement.
     */
    public static void apply(Connection connection, Dialect dialect, String prefix) throws SQLException {
        List<String> statements = statements(ddl(dialect, prefix));
        switch (dialect) {
            case POSTGRESQL -> applyInTransaction(connection, statements, prefix);
            case MARIADB -> applyUnderNamedLock(connection, statements, prefix);
            case H2 -> run(connection, statements);
        }
    }

    private static void run(Connection connection, List<String> statements) throws SQLException {
        try (Statement s = connection.createStatement()) {
            for (String sql : statements) s.execute(sql);
        }
    }

    private static void applyInTransaction(Connection connection, List<String> statements, String prefix) throws SQLException {
        connection.setAutoCommit(false);
        try {
            try (PreparedStatement lock = connection.prepareStatement("select pg_advisory_xact_lock(?)")) {
                lock.setLong(1, 0x5354_4b00_0000_0000L ^ prefix.hashCode());
                lock.executeQuery().close();
            }
            run(connection, statements);
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
    }

    private static void applyUnderNamedLock(Connection connection, List<String> statements, String prefix) throws SQLException {
        String name = "statekit_schema_" + prefix;
        try (PreparedStatement lock = connection.prepareStatement("select get_lock(?, 120)")) {
            lock.setString(1, name);
            try (ResultSet rs = lock.executeQuery()) {
                if (!rs.next() || rs.getInt(1) != 1) throw new SQLException("the lock " + name + " was not granted within 120 s");
            }
        }
        try {
            run(connection, statements);
        } finally {
            try (PreparedStatement release = connection.prepareStatement("select release_lock(?)")) {
                release.setString(1, name);
                release.executeQuery().close();
            }
        }
    }

    /**
     * As {@link #recordedVersions(Connection, String)}, first asking {@code dialect}'s catalog
     * whether the table exists where it can: MariaDB's driver logs a WARN for every error the server
     * answers, such as the missing table of a store's first start.
     */
    public static @Nullable SortedSet<Integer> recordedVersions(Connection connection, Dialect dialect, String prefix) throws SQLException {
        String exists = SqlFlavor.of(dialect).tableExists();
        if (exists != null) {
            boolean autoCommit = connection.getAutoCommit();
            try (PreparedStatement ps = connection.prepareStatement(exists)) {
                ps.setString(1, prefix + "schema_version");
                try (ResultSet rs = ps.executeQuery()) {
                    if (!rs.next()) return null;
                }
            } finally {
                if (!autoCommit) connection.rollback();
            }
        }
        return recordedVersions(connection, prefix);
    }

    /**
     * Returns the versions recorded in the {@code schema_version} table of {@code prefix}, or null
     * when that table does not exist. Leaves no transaction open on a connection that is not in
     * auto-commit mode.
     */
    public static @Nullable SortedSet<Integer> recordedVersions(Connection connection, String prefix) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        try (Statement s = connection.createStatement();
             ResultSet rs = s.executeQuery("select version from " + prefix + "schema_version")) {
            SortedSet<Integer> versions = new TreeSet<>();
            while (rs.next()) versions.add(rs.getInt(1));
            return versions;
        } catch (SQLException e) {
            if (missingTable(e)) return null;
            throw e;
        } finally {
            if (!autoCommit) connection.rollback();
        }
    }

    private static boolean missingTable(SQLException e) {
        // PostgreSQL: undefined table; H2: table not found (42S02, and 42S04 or 4210x by error code); MariaDB: 42S02
        String state = e.getSQLState();
        int code = e.getErrorCode();
        return "42P01".equals(state) || "42S02".equals(state) || "42S04".equals(state)
                || code == 42102 || code == 42103 || code == 42104;
    }

    /**
     * Returns null when the tables of {@code prefix} are at the schema version this code needs, or
     * else why not and what to run: the versions missing (all of them when {@code recorded} is null,
     * the table being absent), or that the tables are newer than this code knows.
     */
    public static @Nullable String mismatch(Dialect dialect, String prefix, @Nullable SortedSet<Integer> recorded) {
        String tables = "the statekit tables with prefix " + prefix;
        if (recorded != null && !recorded.isEmpty() && recorded.last() > VERSION) {
            return tables + " are at version " + recorded.last() + ", newer than this statekit-store-jdbc (" + VERSION
                    + ") knows: upgrade statekit-store-jdbc to a version that knows schema version " + recorded.last();
        }
        List<Integer> missing = new ArrayList<>();
        for (int version : VERSIONS) {
            if (recorded == null || !recorded.contains(version)) missing.add(version);
        }
        if (missing.isEmpty()) return null;
        String where;
        if (recorded == null) {
            where = " are missing (there is no table " + prefix + "schema_version)";
        } else if (recorded.isEmpty()) {
            where = " record no schema version (" + prefix + "schema_version is empty)";
        } else if (missing.get(0) > recorded.last()) {
            where = " are at version " + recorded.last();
        } else {
            where = " are at version " + recorded.last() + " without " + versionList(missing.stream().filter(v -> v < recorded.last()).toList());
        }
        String location = location(dialect);
        return tables + where + "; this statekit-store-jdbc needs " + VERSION + ": run " + versionList(missing)
                + " (classpath:" + location + "/V<n>__statekit.sql, or the Liquibase changelog " + location
                + "/changelog.xml) with your migration tool, or build the store with createSchemaIfMissing(true)";
    }

    /** Returns the classpath directory of the schema files of {@code dialect}, without a trailing slash. */
    public static String location(Dialect dialect) {
        String first = dialect.schemaResource(1);
        return first.substring(0, first.lastIndexOf('/'));
    }

    /** Names versions for a person: V5, V5 and V6, V3, V5 and V6, or V1 to V6 for a run of three or more. */
    public static String versionList(List<Integer> versions) {
        if (versions.size() > 2 && versions.get(versions.size() - 1) - versions.get(0) == versions.size() - 1) {
            return "V" + versions.get(0) + " to V" + versions.get(versions.size() - 1);
        }
        StringBuilder text = new StringBuilder();
        for (int i = 0; i < versions.size(); i++) {
            if (i > 0) text.append(i == versions.size() - 1 ? " and " : ", ");
            text.append('V').append(versions.get(i));
        }
        return text.toString();
    }
}
