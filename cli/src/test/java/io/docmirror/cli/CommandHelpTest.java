package io.docmirror.cli;

import io.docmirror.config.ConfigOption;
import io.docmirror.config.SectionDefinition;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The commands' help names configuration options by key, and some with their default ({@code (default:
 * store.http.port, 8081; ...)}): picocli's annotations take only compile-time constants, so those keys and defaults
 * are typed there again. This keeps them true to the declarations: every key a help text names is a declared option,
 * and a default it states is that option's default.
 */
class CommandHelpTest {
    private static final Pattern OPTION_KEY = Pattern.compile(
            "\\b((?:store|mirror|flight|metrics|kafka|flatten|sql|catalog|object-store)\\.[a-z0-9.-]*[a-z0-9*])");
    private static final Pattern KEY_WITH_DEFAULT = Pattern.compile("\\(default: ([a-z0-9.-]+), ([^;)]+)[;)]");

    @Test
    void helpNamesDeclaredOptionsWithTheirDefaults() {
        Map<String, ConfigOption> declared = new TreeMap<>();
        for (SectionDefinition section : ConfigFile.typedSections()) {
            section.options().forEach(option -> declared.put(option.key(), option));
        }
        List<String> help = new ArrayList<>();
        collectHelp(new CommandLine(new DocmirrorCommand()), help);

        List<String> named = new ArrayList<>();
        List<String> defaultsStated = new ArrayList<>();
        List<String> wrong = new ArrayList<>();
        for (String usage : help) {
            String text = usage.replaceAll("\\s+", " ");
            Matcher keys = OPTION_KEY.matcher(text);
            while (keys.find()) {
                String key = keys.group(1);
                named.add(key);
                boolean known = key.endsWith(".*")
                        ? declared.keySet().stream().anyMatch(each -> each.startsWith(key.substring(0, key.length() - 1)))
                        : declared.containsKey(key);
                if (!known) {
                    wrong.add(key + " is not a declared option");
                }
            }
            Matcher defaults = KEY_WITH_DEFAULT.matcher(text);
            while (defaults.find()) {
                ConfigOption option = declared.get(defaults.group(1));
                defaultsStated.add(defaults.group(1) + "=" + defaults.group(2).trim());
                if (option != null && !option.defaultValue().orElse("").equals(defaults.group(2).trim())) {
                    wrong.add(defaults.group(1) + ": help says " + defaults.group(2) + ", declared "
                            + option.defaultValue().orElse("(none)"));
                }
            }
        }
        System.out.println("option keys named in help: " + named + "; defaults stated: " + defaultsStated);
        assertThat(named).as("keys the help names").contains("store.http.port", "flight.port", "store.http.bind");
        assertThat(defaultsStated).as("defaults the help states").contains("store.http.port=8081",
                "flight.port=32010", "store.http.bind=127.0.0.1");
        assertThat(wrong).isEmpty();
    }

    private static void collectHelp(CommandLine command, List<String> help) {
        help.add(command.getUsageMessage(CommandLine.Help.Ansi.OFF));
        command.getSubcommands().values().stream().distinct().forEach(sub -> collectHelp(sub, help));
    }
}
