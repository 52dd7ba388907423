package io.docmirror.store.internal;

import java.util.ArrayList;
import java.util.List;

/** RFC 6901 JSON Pointers ({@code /a/b~1c/0}): the paths of partition keys and patch operations. */
public final class JsonPointer {
    private JsonPointer() {
    }

    /**
     * @throws IllegalArgumentException when the pointer does not start with '/' or has a bad '~' escape
     */
    public static List<String> parse(String pointer) {
        if (pointer.isEmpty() || pointer.charAt(0) != '/') {
            throw new IllegalArgumentException("path '" + pointer + "' is not a JSON Pointer starting with '/'");
        }
        List<String> segments = new ArrayList<>();
        for (String raw : pointer.substring(1).split("/", -1)) {
            segments.add(unescape(raw, pointer));
        }
        return List.copyOf(segments);
    }

    public static String escape(String segment) {
        return segment.replace("~", "~0").replace("/", "~1");
    }

    public static String format(List<String> segments) {
        StringBuilder pointer = new StringBuilder();
        for (String segment : segments) {
            pointer.append('/').append(escape(segment));
        }
        return pointer.toString();
    }

    private static String unescape(String raw, String pointer) {
        StringBuilder segment = new StringBuilder(raw.length());
        for (int index = 0; index < raw.length(); index++) {
            char c = raw.charAt(index);
            if (c != '~') {
                segment.append(c);
                continue;
            }
            char next = index + 1 < raw.length() ? raw.charAt(index + 1) : ' ';
            if (next == '0') {
                segment.append('~');
            }
            else if (next == '1') {
                segment.append('/');
            }
            else {
                throw new IllegalArgumentException("path '" + pointer + "' has '~' not followed by 0 or 1");
            }
            index++;
        }
        return segment.toString();
    }
}
