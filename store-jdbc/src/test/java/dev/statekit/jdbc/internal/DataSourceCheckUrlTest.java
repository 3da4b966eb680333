package dev.statekit.jdbc.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Which URLs, as {@code DatabaseMetaData.getURL()} gives them, name an embedded H2 database in files. */
class DataSourceCheckUrlTest {

    @ParameterizedTest
    @ValueSource(strings = {"jdbc:h2:file:/var/lib/app/statekit", "jdbc:h2:~/statekit", "jdbc:h2:./data/statekit",
            "jdbc:h2:/var/lib/app/statekit", "jdbc:h2:C:/data/statekit", "jdbc:h2:file:~/statekit", "jdbc:h2:nio:/data/statekit",
            "jdbc:h2:split:/data/statekit", "JDBC:H2:FILE:/data/statekit"})
    void filesAreChecked(String url) {
        assertThat(DataSourceCheck.inFiles(url)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(strings = {"jdbc:h2:mem:statekit", "jdbc:h2:mem:", "jdbc:h2:memFS:statekit", "jdbc:h2:memLZF:statekit",
            "jdbc:h2:tcp://localhost/~/statekit", "jdbc:h2:ssl://db.example/statekit", "JDBC:H2:MEM:statekit",
            "jdbc:postgresql://127.0.0.1:5432/statekit", "jdbc:hsqldb:file:/data/statekit"})
    void memoryServersAndOtherDatabasesAreNot(String url) {
        assertThat(DataSourceCheck.inFiles(url)).isFalse();
    }
}
