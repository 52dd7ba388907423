package io.docmirror.feed.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

@Tag("slow")
class KafkaBrokerTest {
    @TempDir
    Path directory;

    @Test
    void startsAnswersAndRestarts() throws Exception {
        try (KafkaBroker broker = KafkaBroker.start(directory)) {
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
                admin.createTopics(List.of(new NewTopic("t", 2, (short) 1))).all().get();
            }
            broker.restart();
            try (Admin admin = Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, broker.bootstrapServers()))) {
                assertThat(admin.listTopics().names().get()).contains("t");
            }
        }
    }
}
