package io.docmirror.mirror;

import io.docmirror.layout.DirectoryName;
import io.docmirror.layout.MirrorLayout;
import io.docmirror.store.ContainerProperties;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class DirectoryNameTest {
    private static final Path MIRROR = Path.of("/data/mirror");

    @Test
    void aLegalContainerNameIsItsOwnDirectoryUpToTheLongest() {
        String longest = "C0" + "a.b_c-".repeat(41) + "xyz1234";
        assertThat(longest).hasSize(ContainerProperties.MAX_ID_LENGTH);
        assertThat(ContainerProperties.of(longest, "/pk").id()).isEqualTo(longest);

        assertThat(MirrorLayout.containerDirectory(MIRROR, "orders")).isEqualTo(MIRROR.resolve("orders"));
        assertThat(MirrorLayout.containerDirectory(MIRROR, longest)).isEqualTo(MIRROR.resolve(longest));
    }

    @ParameterizedTest
    @ValueSource(strings = {"..", ".", "", "../../etc", "a/../../b", "/abs", "_manifest", ".lock", "a\\b", "na\u00efve",
            "-rf", "x\u0000y"})
    void noNameLeavesTheMirrorDirectoryOrLandsOnAnotherOfItsFiles(String name) {
        Path directory = MirrorLayout.containerDirectory(MIRROR, name);

        assertThat(directory.getParent()).isEqualTo(MIRROR);
        String fileName = directory.getFileName().toString();
        assertThat(fileName).matches("[A-Za-z0-9][A-Za-z0-9_.-]*").hasSizeLessThanOrEqualTo(DirectoryName.MAX_LENGTH);
    }

    @ParameterizedTest
    @ValueSource(strings = {"orders", "..", "../../etc", "na\u00efve"})
    void aDirectoryNameReadBackLeadsToTheSameDirectory(String name) {
        // The SQL endpoint names containers by their directories and finds each directory again from that name.
        String fileName = MirrorLayout.containerDirectory(MIRROR, name).getFileName().toString();

        assertThat(MirrorLayout.containerDirectory(MIRROR, fileName)).isEqualTo(MIRROR.resolve(fileName));
    }

    @Test
    void twoNamesThatReadAlikeGetTwoDirectories() {
        assertThat(MirrorLayout.containerDirectory(MIRROR, "a/b")).isNotEqualTo(
                MirrorLayout.containerDirectory(MIRROR, "a\\b"));
    }
}
