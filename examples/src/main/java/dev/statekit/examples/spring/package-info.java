/**
 * The Spring Boot sample of docs/spring-boot.md: a shop whose orders are placed over HTTP, each
 * with a confirmation task created in the order's transaction and run by a worker bean.
 */
@NullMarked
package dev.statekit.examples.spring;

import org.jspecify.annotations.NullMarked;
