package io.docmirror.sql;

import java.nio.file.Path;

/**
 * An endpoint in a JVM of its own that keeps its copy up to date until it is killed: {@link ServingCopyTest} kills
 * it with SIGKILL wherever it happens to be, applying a commit included. Prints what it applied.
 */
public final class CopyFollower {
    private CopyFollower() {
    }

    public static void main(String[] args) throws Exception {
        try (SqlEndpoint endpoint = SqlEndpoint.open(Path.of(args[0]), SqlConfig.defaults())) {
            System.out.println("opened at " + endpoint.versions());
            while (true) {
                if (endpoint.refresh()) {
                    System.out.println("applied " + endpoint.versions());
                }
                Thread.sleep(10);
            }
        }
    }
}
