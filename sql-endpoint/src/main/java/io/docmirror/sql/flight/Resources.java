package io.docmirror.sql.flight;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import java.util.List;

/** Closing several JDBC and Arrow resources in order, none left open because an earlier one failed to close. */
final class Resources {
    private static final Logger log = LoggerFactory.getLogger(Resources.class);

    private Resources() {
    }

    /**
     * Closes each of {@code resources} in order. A failure to close is added to {@code failure} when there is one
     * (the error the caller is about to report), or else logged: the result was already delivered or dropped, and
     * the client has nothing to act on.
     */
    static void closeAll(List<? extends AutoCloseable> resources, Throwable failure) {
        for (AutoCloseable resource : resources) {
            try {
                resource.close();
            } catch (Exception e) {
                if (failure != null) {
                    failure.addSuppressed(e);
                } else {
                    log.warn("Cannot close {} of a Flight SQL query", resource, e);
                }
            }
        }
    }
}
