package dev.statekit.jdbc;

/**
 * The SQL dialects {@link JdbcStore} speaks. Unless one is set on the builder, the store picks it
 * from the database's product name and version ({@link #of(String, String)}).
 */
public enum Dialect {
    /** PostgreSQL 10 or later: claims in one statement per batch, LISTEN/NOTIFY for wake-ups. */
    POSTGRESQL("postgresql"),
    /** H2 2.x, the embedded database: the same row locks; runtimes poll instead of listening. */
    H2("h2"),
    /**
     * MariaDB 10.6 or later, through MariaDB's or MySQL's driver: the generic path of H2 with
     * {@code FOR UPDATE SKIP LOCKED}; wake-ups across processes through a table the runtimes read
     * every 50 ms, since MariaDB has no notifications. Times are kept as microseconds since the
     * epoch, so that no driver converts them through the JVM's zone or cuts their fraction.
     */
    MARIADB("mariadb");

    private final String directory;

    Dialect(String directory) {
        this.directory = directory;
    }

    /**
     * Returns the dialect of the database that calls itself {@code productName}, as
     * {@link java.sql.DatabaseMetaData#getDatabaseProductName()} reports it.
     *
     * @param productName the product name, for example {@code PostgreSQL} or {@code H2}
     * @return the dialect
     * @throws IllegalArgumentException if statekit does not speak to that database
     */
    public static Dialect fromProductName(String productName) {
        String name = productName.strip().toLowerCase(java.util.Locale.ROOT);
        if (name.contains("postgres")) return POSTGRESQL;
        if (name.equals("h2")) return H2;
        if (name.equals("mariadb")) return MARIADB;
        throw new IllegalArgumentException("statekit has no SQL dialect for database '" + productName
                + "'; it speaks PostgreSQL, H2 and MariaDB");
    }

    /**
     * Returns the dialect of the database that calls itself {@code productName} at
     * {@code productVersion}, as {@link java.sql.DatabaseMetaData#getDatabaseProductName()} and
     * {@link java.sql.DatabaseMetaData#getDatabaseProductVersion()} report them. MySQL's driver
     * calls a MariaDB server "MySQL"; its version names MariaDB.
     *
     * @param productName    the product name, for example {@code PostgreSQL}, {@code H2}, {@code MariaDB}
     * @param productVersion the product version, for example {@code 10.11.18-MariaDB} or {@code 5.5.5-10.11.18-MariaDB}
     * @return the dialect
     * @throws IllegalArgumentException if statekit does not speak to that database, or not to that
     *                                  version of MariaDB
     */
    public static Dialect of(String productName, String productVersion) {
        String name = productName.strip().toLowerCase(java.util.Locale.ROOT);
        boolean mariaDb = name.equals("mariadb") || (name.equals("mysql") && productVersion.contains("MariaDB"));
        if (!mariaDb) {
            if (name.equals("mysql")) {
                throw new IllegalArgumentException("statekit has no SQL dialect for MySQL " + productVersion
                        + " (it has none of MariaDB's sequences and RETURNING); it speaks PostgreSQL, H2 and MariaDB 10.6 or later");
            }
            return fromProductName(productName);
        }
        java.util.regex.Matcher m = java.util.regex.Pattern.compile("(?:^|-)(\\d+)\\.(\\d+)\\.\\d+-MariaDB").matcher(productVersion);
        if (m.find()) {
            int major = Integer.parseInt(m.group(1));
            int minor = Integer.parseInt(m.group(2));
            if (major < 10 || (major == 10 && minor < 6)) {
                throw new IllegalArgumentException("statekit speaks MariaDB 10.6 or later (FOR UPDATE SKIP LOCKED), not "
                        + productVersion);
            }
        }
        return MARIADB;
    }

    /**
     * Returns the classpath location of this dialect's schema at {@code version}, for example
     * {@code dev/statekit/jdbc/postgresql/V1__statekit.sql}.
     *
     * @param version the schema version, from 1
     * @return the resource path, without a leading slash
     * @throws IllegalArgumentException if {@code version} is not positive
     */
    public String schemaResource(int version) {
        if (version < 1) throw new IllegalArgumentException("schema versions start at 1, was " + version);
        return "dev/statekit/jdbc/" + directory + "/V" + version + "__statekit.sql";
    }
}
