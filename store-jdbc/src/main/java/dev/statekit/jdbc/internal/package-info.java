/**
 * Implementation details of the JDBC store: SQL text, row mapping, the attribute encoding, error
 * translation and the PostgreSQL listener. Not API: anything here may change without notice,
 * and no public signature outside this package mentions its types.
 */
@NullMarked
package dev.statekit.jdbc.internal;

import org.jspecify.annotations.NullMarked;
