package io.docmirror.store.server;

import io.docmirror.store.StoreErrorCode;
import io.docmirror.store.StoreException;

/** A page size a client asks for, in a query parameter or a header, and the server's cap on it. */
public final class PageSize {
    private PageSize() {
    }

    /**
     * The page size {@code written} asks for, lowered to {@code cap}: decimal digits, however many (leading zeros, or a
     * count beyond any integer, must not slip past the cap by their length), and at least 1.
     *
     * @param name the parameter or header, for the error
     * @throws StoreException a 400 naming {@code name} and the rule, for anything else
     */
    public static int capped(String written, String name, int cap) {
        if (!written.matches("[0-9]+")) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid " + name + " '" + written
                    + "': a page size is a positive integer, written in decimal digits");
        }
        String digits = written.replaceFirst("^0+", "");
        if (digits.isEmpty()) {
            throw new StoreException(StoreErrorCode.BAD_REQUEST, "Invalid " + name + " '" + written
                    + "': a page size is at least 1");
        }
        // More digits than the cap has can only be more than the cap.
        return digits.length() > Integer.toString(cap).length() ? cap : Math.min(Integer.parseInt(digits), cap);
    }
}
