/**
 * The seed systems as services: {@code examples serve SYSTEM} runs one with its seed's HTTP API
 * and a web dashboard at {@code /ui}, on Jetty's server core and Jackson.
 */
@NullMarked
package dev.statekit.examples.serve;

import org.jspecify.annotations.NullMarked;
