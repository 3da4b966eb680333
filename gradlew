#!/usr/bin/env sh
# Runs the build with Gradle, in the spirit of Gradle's wrapper, which cannot download a
# distribution here: it uses the `gradle` on the PATH (Gradle 4.4.1 from Debian, or any later
# one), and when there is none installs Debian's package (apt-get, through sudo when not root),
# saying so. Then it runs gradle with the arguments given, from the repository's root. Debian's
# `gradle` script probes the JVM with `java -version` and lets it print its banner on every call:
# then the Gradle launcher it names is started here directly, as that script would start it.
#   ./gradlew test
#   ./gradlew -q :examples:run
set -e
cd "$(dirname "$0")"

if ! command -v gradle >/dev/null 2>&1; then
    echo "gradlew: no gradle on the PATH; installing Debian's gradle package" >&2
    if [ "$(id -u)" -eq 0 ]; then as_root=""; else as_root="sudo"; fi
    if ! command -v apt-get >/dev/null 2>&1; then
        echo "gradlew: apt-get is missing: install Gradle 4.4.1 or later and put it on the PATH" >&2
        exit 1
    fi
    $as_root apt-get update -qq
    $as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq gradle >/dev/null
    echo "gradlew: installed $(gradle --version 2>/dev/null | grep '^Gradle')" >&2
fi
script=$(readlink -f "$(command -v gradle)")
launcher=$(ls "$(dirname "$script")"/../lib/gradle-launcher-*.jar 2>/dev/null | head -1)
if [ -n "$launcher" ] && grep -q -- '-version ; then' "$script"; then
    java=java
    [ -n "${JAVA_HOME:-}" ] && java="$JAVA_HOME/bin/java"
    ulimit -n "$(ulimit -H -n)" 2>/dev/null || true
    # shellcheck disable=SC2086  # JAVA_OPTS and GRADLE_OPTS hold several options, as for the gradle script
    exec "$java" --add-opens java.base/java.lang=ALL-UNNAMED ${JAVA_OPTS:-} ${GRADLE_OPTS:-} \
        -Dorg.gradle.appname=gradlew -classpath "$launcher" org.gradle.launcher.GradleMain "$@"
fi
exec gradle "$@"
