package dev.statekit.examples.docs;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** Every link of the user's pages to a page of the project leads to a page that exists, and to a heading it has. */
class DocLinksTest {
    private static final Pattern LINK = Pattern.compile("\\]\\(([^)\\s]+)\\)");

    @ParameterizedTest
    @ValueSource(strings = {"README.md", "docs/getting-started.md", "docs/configuration.md", "docs/operations.md",
            "docs/troubleshooting.md", "docs/spring-boot.md"})
    void everyLinkLeadsToAPageAndHeadingThatExist(String page) throws IOException {
        Path from = Markdown.ROOT.resolve(page);
        List<String> broken = new ArrayList<>();
        int links = 0;
        for (String target : links(withoutCode(Files.readString(from)))) {
            if (target.matches("[a-z]+:.*")) continue;         // https:, mailto: and the like
            links++;
            int hash = target.indexOf('#');
            String file = hash < 0 ? target : target.substring(0, hash);
            Path to = file.isEmpty() ? from : from.getParent().resolve(file).normalize();
            if (!Files.exists(to)) {
                broken.add(target + ": no such file");
            } else if (hash >= 0 && !anchors(Files.readString(to)).contains(target.substring(hash + 1))) {
                broken.add(target + ": no such heading in " + Markdown.ROOT.relativize(to));
            }
        }
        assertThat(links).as("links in " + page).isPositive();
        assertThat(broken).as("broken links in " + page).isEmpty();
    }

    static List<String> links(String markdown) {
        List<String> targets = new ArrayList<>();
        Matcher m = LINK.matcher(markdown);
        while (m.find()) targets.add(m.group(1));
        return targets;
    }

    /** The text outside fenced blocks and code spans, where a "](" is not a link. */
    static String withoutCode(String markdown) {
        StringBuilder text = new StringBuilder();
        boolean fenced = false;
        for (String line : markdown.lines().collect(Collectors.toList())) {
            if (line.startsWith("```")) {
                fenced = !fenced;
                continue;
            }
            if (!fenced) text.append(line.replaceAll("`[^`]*`", "``")).append('\n');
        }
        return text.toString();
    }

    /** The anchors of a page's headings, as GitHub makes them: lower case, punctuation dropped, spaces to hyphens. */
    static Set<String> anchors(String markdown) {
        Set<String> anchors = new HashSet<>();
        boolean fenced = false;
        for (String line : markdown.lines().collect(Collectors.toList())) {
            if (line.startsWith("```")) fenced = !fenced;
            if (fenced || !line.matches("#{1,6} .*")) continue;
            String text = line.replaceFirst("#{1,6} ", "").strip().toLowerCase(Locale.ROOT);
            String slug = text.replaceAll("[^\\p{L}\\p{N}_\\- ]", "").replace(' ', '-');
            String unique = slug;
            for (int n = 1; !anchors.add(unique); n++) unique = slug + "-" + n;
        }
        return anchors;
    }
}
