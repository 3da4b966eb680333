package com.example.tickets;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import javax.xml.parsers.DocumentBuilderFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.w3c.dom.Document;
import org.w3c.dom.Element;
import org.w3c.dom.NodeList;

/** The POMs statekit publishes carry what Maven Central asks for, and the BOM lists every artifact. */
class PublishedPomsTest {
    static final String VERSION = System.getProperty("statekit.version");
    static final Path REPOSITORY = Path.of(System.getProperty("statekit.localRepository"));

    static Document pom(String artifact) throws Exception {
        Path file = REPOSITORY.resolve("dev/statekit/" + artifact + "/" + VERSION + "/" + artifact + "-" + VERSION + ".pom");
        assertThat(file).as("the published POM of %s", artifact).exists();
        return DocumentBuilderFactory.newInstance().newDocumentBuilder().parse(file.toFile());
    }

    static String text(Element parent, String path) {
        Element e = parent;
        for (String name : path.split("/")) {
            NodeList nodes = e.getElementsByTagName(name);
            if (nodes.getLength() == 0) return "";
            e = (Element) nodes.item(0);
        }
        return e.getTextContent().strip();
    }

    @ParameterizedTest
    @ValueSource(strings = {"statekit-bom", "statekit-store-spi", "statekit-core", "statekit-store-jdbc", "statekit-test",
            "statekit-micrometer", "statekit-opentelemetry", "statekit-dashboard", "statekit-spring-boot-starter"})
    void everyPomCarriesTheFieldsCentralAsksFor(String artifact) throws Exception {
        Element project = pom(artifact).getDocumentElement();

        assertThat(text(project, "artifactId")).isEqualTo(artifact);
        assertThat(text(project, "name")).isEqualTo(artifact);
        assertThat(text(project, "description")).isNotBlank();
        assertThat(text(project, "url")).startsWith("https://");
        assertThat(text(project, "licenses/license/name")).isEqualTo("Apache License, Version 2.0");
        assertThat(text(project, "licenses/license/url")).isEqualTo("https://www.apache.org/licenses/LICENSE-2.0.txt");
        assertThat(text(project, "scm/url")).startsWith("https://");
        assertThat(text(project, "scm/connection")).startsWith("scm:git:");
        assertThat(text(project, "developers/developer/name")).isNotBlank();
        if (!artifact.equals("statekit-bom")) {
            Path jar = REPOSITORY.resolve("dev/statekit/" + artifact + "/" + VERSION);
            for (String suffix : List.of(".jar", "-sources.jar", "-javadoc.jar")) {
                assertThat(jar.resolve(artifact + "-" + VERSION + suffix)).exists();
            }
        }
    }

    @Test
    void theBomListsEveryArtifactAtTheVersion() throws Exception {
        Element project = pom("statekit-bom").getDocumentElement();
        assertThat(text(project, "packaging")).isEqualTo("pom");
        NodeList deps = ((Element) project.getElementsByTagName("dependencyManagement").item(0)).getElementsByTagName("dependency");
        List<String> listed = new ArrayList<>();
        for (int i = 0; i < deps.getLength(); i++) {
            Element d = (Element) deps.item(i);
            listed.add(text(d, "groupId") + ":" + text(d, "artifactId") + ":" + text(d, "version"));
        }
        assertThat(listed).containsExactlyInAnyOrder("dev.statekit:statekit-store-spi:" + VERSION, "dev.statekit:statekit-core:" + VERSION,
                "dev.statekit:statekit-store-jdbc:" + VERSION, "dev.statekit:statekit-test:" + VERSION,
                "dev.statekit:statekit-micrometer:" + VERSION, "dev.statekit:statekit-opentelemetry:" + VERSION,
                "dev.statekit:statekit-dashboard:" + VERSION, "dev.statekit:statekit-spring-boot-starter:" + VERSION);
    }

    @ParameterizedTest
    @ValueSource(strings = {"statekit-micrometer:io.micrometer:micrometer-core", "statekit-opentelemetry:io.opentelemetry:opentelemetry-api"})
    void anIntegrationDependsOnStatekitCoreAndWhatItIntegratesWithOnly(String row) throws Exception {
        String[] parts = row.split(":");
        Element project = pom(parts[0]).getDocumentElement();
        NodeList deps = project.getElementsByTagName("dependency");
        List<String> compile = new ArrayList<>();
        for (int i = 0; i < deps.getLength(); i++) {
            Element d = (Element) deps.item(i);
            String scope = text(d, "scope");
            if (scope.isEmpty() || scope.equals("compile")) compile.add(text(d, "groupId") + ":" + text(d, "artifactId"));
        }
        assertThat(compile).containsExactlyInAnyOrder("dev.statekit:statekit-core", parts[1] + ":" + parts[2], "org.jspecify:jspecify");
    }

    @Test
    void theStarterNamesTheDashboardAndTheMetersAsOptionalDependencies() throws Exception {
        NodeList deps = pom("statekit-spring-boot-starter").getDocumentElement().getElementsByTagName("dependency");
        List<String> optional = new ArrayList<>();
        for (int i = 0; i < deps.getLength(); i++) {
            Element d = (Element) deps.item(i);
            if (text(d, "optional").equals("true")) optional.add(text(d, "groupId") + ":" + text(d, "artifactId"));
        }
        assertThat(optional).contains("dev.statekit:statekit-dashboard", "dev.statekit:statekit-micrometer");
    }
}
