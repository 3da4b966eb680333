package dev.statekit.jdbc;

import java.lang.reflect.Proxy;
import java.sql.Connection;
import java.sql.SQLException;
import javax.sql.DataSource;

/** Data sources and connections that fail as a database can. */
final class Failing {
    private Failing() {
    }

    /** Hands out connections. */
    @FunctionalInterface
    interface Connections {
        Connection get() throws SQLException;
    }

    /** A data source whose {@code getConnection} throws {@code failure}. */
    static DataSource dataSource(SQLException failure) {
        return dataSource(() -> {
            throw failure;
        });
    }

    /** A data source whose connections fail every statement with {@code failure}. */
    static DataSource statementsFailWith(SQLException failure) {
        Connection connection = (Connection) Proxy.newProxyInstance(Failing.class.getClassLoader(),
                new Class<?>[] {Connection.class}, (p, m, a) -> switch (m.getName()) {
                    case "prepareStatement", "createStatement", "setSavepoint" -> throw failure;
                    case "getAutoCommit" -> true;
                    case "close", "setAutoCommit", "commit", "rollback" -> null;
                    case "isClosed" -> false;
                    default -> throw new UnsupportedOperationException(m.getName());
                });
        return dataSource(() -> connection);
    }

    /** A data source over {@code connections}. */
    static DataSource dataSource(Connections connections) {
        return new PlainDataSource() {
            @Override
            public Connection getConnection() throws SQLException {
                return connections.get();
            }

            @Override
            public Connection getConnection(String username, String password) throws SQLException {
                return connections.get();
            }
        };
    }
}
