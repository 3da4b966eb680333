/**
 * {@code examples serve read-do}: the Read→Do item service of seed 002 over the
 * {@link dev.statekit.examples.hosts.ReadDoHost}: capture, the pipeline (extract, summarize,
 * score, todos, card) under runtime leases with a simulated extractor and AI, process, export into
 * card files once per key, archive and unarchive.
 */
@NullMarked
package dev.statekit.examples.serve.readdo;

import org.jspecify.annotations.NullMarked;
