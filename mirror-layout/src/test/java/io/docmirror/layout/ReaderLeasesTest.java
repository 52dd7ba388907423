package io.docmirror.layout;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.OptionalLong;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;

/** A lease holds a version while its process runs and it is open; a lease of a process that is gone does not count. */
class ReaderLeasesTest {
    @TempDir
    Path container;

    @Test
    void theOldestOpenLeaseHoldsUntilItIsClosed() {
        ReaderLeases readers = new ReaderLeases(container);
        assertThat(readers.oldestHeld()).isEmpty();

        ReaderLeases.Lease seven = readers.take(7);
        ReaderLeases.Lease nine = readers.take(9);
        assertThat(readers.oldestHeld()).isEqualTo(OptionalLong.of(7));

        seven.close();
        assertThat(readers.oldestHeld()).isEqualTo(OptionalLong.of(9));
        nine.close();
        assertThat(readers.oldestHeld()).isEmpty();
    }

    @Test
    void aLeaseOfAProcessThatIsGoneIsIgnoredAndRemoved() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        assertThat(gone.waitFor(10, TimeUnit.SECONDS)).isTrue();
        Path leases = Files.createDirectories(container.resolve(ReaderLeases.DIRECTORY));
        Path lease = leases.resolve("v000000000003-0b5e0f6e-0000-4000-8000-000000000000.lease");
        Files.writeString(lease, "{\"pid\":" + gone.pid() + ",\"processStart\":1}");

        assertThat(new ReaderLeases(container).oldestHeld()).isEmpty();
        assertThat(lease).doesNotExist();
    }
}
