package io.docmirror.query;

import java.util.ArrayList;
import java.util.List;

/**
 * A compiled LIKE pattern: {@code %} any run of characters, {@code _} any one, {@code [abc]}, {@code [a-f]} and
 * {@code [^abc]} one of (or not of) a set, the escape character making the next one literal. Matching takes time
 * proportional to the pattern's length times the text's, whatever the pattern: no backtracking a hostile pattern
 * could make exponential, as a regular expression's can.
 */
final class LikePattern {
    /** One element of the pattern: a run ({@code %}), any one character, a set, or one literal code point. */
    private record Element(boolean anyRun, boolean anyOne, String set, boolean negated, int literal) {
        boolean matches(int codePoint) {
            if (anyOne) {
                return true;
            }
            if (set == null) {
                return codePoint == literal;
            }
            return inSet(codePoint) != negated;
        }

        private boolean inSet(int codePoint) {
            for (int index = 0; index < set.length(); index++) {
                char first = set.charAt(index);
                if (index + 2 < set.length() && set.charAt(index + 1) == '-') {
                    if (codePoint >= first && codePoint <= set.charAt(index + 2)) {
                        return true;
                    }
                    index += 2;
                } else if (codePoint == first) {
                    return true;
                }
            }
            return false;
        }
    }

    private final List<Element> elements;

    private LikePattern(List<Element> elements) {
        this.elements = elements;
    }

    static LikePattern compile(String pattern, Character escape) {
        List<Element> elements = new ArrayList<>();
        for (int index = 0; index < pattern.length(); ) {
            int character = pattern.codePointAt(index);
            int width = Character.charCount(character);
            if (escape != null && character == escape && index + width < pattern.length()) {
                int escaped = pattern.codePointAt(index + width);
                elements.add(new Element(false, false, null, false, escaped));
                index += width + Character.charCount(escaped);
            } else if (character == '%') {
                elements.add(new Element(true, false, null, false, 0));
                index++;
            } else if (character == '_') {
                elements.add(new Element(false, true, null, false, 0));
                index++;
            } else if (character == '[' && pattern.indexOf(']', index + 1) > index + 1) {
                int end = pattern.indexOf(']', index + 1);
                String set = pattern.substring(index + 1, end);
                boolean negated = set.startsWith("^") && set.length() > 1;
                elements.add(new Element(false, false, negated ? set.substring(1) : set, negated, 0));
                index = end + 1;
            } else {
                elements.add(new Element(false, false, null, false, character));
                index += width;
            }
        }
        return new LikePattern(List.copyOf(elements));
    }

    boolean matches(String text) {
        int[] codePoints = text.codePoints().toArray();
        // reachable[i]: the elements so far can match the first i code points.
        boolean[] reachable = new boolean[codePoints.length + 1];
        reachable[0] = true;
        for (Element element : elements) {
            boolean[] next = new boolean[codePoints.length + 1];
            if (element.anyRun()) {
                boolean any = false;
                for (int position = 0; position <= codePoints.length; position++) {
                    any |= reachable[position];
                    next[position] = any;
                }
            } else {
                for (int position = 0; position < codePoints.length; position++) {
                    next[position + 1] = reachable[position] && element.matches(codePoints[position]);
                }
            }
            reachable = next;
        }
        return reachable[codePoints.length];
    }
}
