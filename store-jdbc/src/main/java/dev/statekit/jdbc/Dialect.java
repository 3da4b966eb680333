package dev.statekit.jdbc;

/**
 * The SQL dialects {@link JdbcStore} speaks. Unless one is set on the builder, the store picks it
 * from {@link java.sql.DatabaseMetaData#getDatabaseProductName()}.
 */
public enum Dialect {
    /** PostgreSQL 10 or later: claims in one statement per batch, LISTEN/NOTIFY for wake-ups. */
    POSTGRESQL("postgresql"),
    /** H2 2.x, the embedded database: the same row locks; runtimes poll instead of listening. */
    H2("h2");

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
        throw new IllegalArgumentException("statekit has no SQL dialect for database '" + productName
                + "'; it speaks PostgreSQL and H2");
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
