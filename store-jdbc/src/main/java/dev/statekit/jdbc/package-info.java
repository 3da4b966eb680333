/**
 * A durable {@link dev.statekit.store.Store} over plain JDBC: {@link dev.statekit.jdbc.JdbcStore}
 * on PostgreSQL (several processes or machines) or on the embedded H2 database (one process),
 * with its versioned schema shipped as resources.
 */
@NullMarked
package dev.statekit.jdbc;

import org.jspecify.annotations.NullMarked;
