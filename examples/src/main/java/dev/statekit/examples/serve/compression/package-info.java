/**
 * {@code examples serve compression}: the single-running compression queue of seed 004 as a
 * service that gzips real files, over the {@link dev.statekit.examples.hosts.CompressionHost}.
 */
@NullMarked
package dev.statekit.examples.serve.compression;

import org.jspecify.annotations.NullMarked;
