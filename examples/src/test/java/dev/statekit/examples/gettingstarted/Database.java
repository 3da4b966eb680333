package dev.statekit.examples.gettingstarted;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.statekit.jdbc.JdbcStore;
import java.nio.file.Path;
import javax.sql.DataSource;

/** The H2 database in a directory, behind a HikariCP pool, and the statekit store on it. */
public final class Database {
    private Database() {}

    public static HikariDataSource pool(Path directory) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl("jdbc:h2:file:" + directory.toAbsolutePath().resolve("orders"));
        config.setUsername("sa");
        config.setPassword("");
        config.setMaximumPoolSize(8);
        return new HikariDataSource(config);
    }

    public static JdbcStore store(DataSource pool) {
        return JdbcStore.builder(pool)
                .createSchemaIfMissing(true)
                .build();
    }
}
