package io.docmirror.bench;

import io.docmirror.mirror.MirrorConfig;

import java.util.HashMap;
import java.util.Map;

/** The {@code mirror.option=value} arguments a benchmark takes after its own, in place of the mirror's defaults. */
final class MirrorOptionArguments {
    private MirrorOptionArguments() {
    }

    /** The options from {@code args[from]} on. */
    static Map<String, String> options(String[] args, int from) {
        Map<String, String> options = new HashMap<>();
        for (int index = from; index < args.length; index++) {
            String[] option = args[index].split("=", 2);
            if (option.length != 2) {
                throw new IllegalArgumentException("Cannot read option " + args[index] + ": give it as name=value");
            }
            options.put(option[0], option[1]);
        }
        return options;
    }

    /** The mirror's configuration with the options from {@code args[from]} on. */
    static MirrorConfig mirrorConfig(String[] args, int from) {
        return MirrorConfig.fromProperties(options(args, from));
    }
}
