package io.docmirror.store;

import com.azure.cosmos.implementation.routing.PartitionKeyInternal;
import com.azure.cosmos.implementation.routing.PartitionKeyInternalHelper;
import com.azure.cosmos.models.PartitionKeyDefinition;
import com.azure.cosmos.models.PartitionKeyDefinitionVersion;
import com.azure.cosmos.models.PartitionKind;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store's effective partition keys are the Cosmos DB SDK's, value for value (the SDK's own hashing is the
 * reference), and a key's log partition is the partition key range whose bounds hold it, so the feed ranges the SDK
 * sees are where the store keeps each item's changes.
 */
class EffectivePartitionKeyTest {
    private static final PartitionKeyDefinition HASH_V2 = new PartitionKeyDefinition()
            .setPaths(List.of("/pk"))
            .setKind(PartitionKind.HASH)
            .setVersion(PartitionKeyDefinitionVersion.V2);

    @Test
    void agreesWithTheSdkOnEveryKindOfValue() {
        List<PartitionKey> keys = new ArrayList<>(List.of(PartitionKey.of(""), PartitionKey.of("c1"),
                PartitionKey.of("日本 \"quoted\" \\ 😀"), PartitionKey.of("x".repeat(2000)), PartitionKey.of(0),
                PartitionKey.of(42), PartitionKey.of(-7), PartitionKey.of(Long.MAX_VALUE), PartitionKey.of(true),
                PartitionKey.of(false), PartitionKey.nullValue(), PartitionKey.NONE,
                PartitionKey.fromJson(JsonNodeFactory.instance.numberNode(new BigDecimal("1.5"))),
                PartitionKey.fromJson(JsonNodeFactory.instance.numberNode(new BigDecimal("-2.25e300")))));
        Random random = new Random(28);
        for (int index = 0; index < 500; index++) {
            keys.add(PartitionKey.of("customer-" + random.nextInt(1_000_000)));
            keys.add(PartitionKey.of(random.nextLong()));
        }
        for (PartitionKey key : keys) {
            String sdk = PartitionKeyInternalHelper.getEffectivePartitionKeyString(
                    PartitionKeyInternal.fromJsonString(key.toWire()), HASH_V2);
            assertThat(EffectivePartitionKey.of(key).toHex()).as("key %s", key).isEqualTo(sdk);
        }
    }

    @Test
    void aKeysRangeIsTheRangeWhoseBoundsHoldIt() {
        Random random = new Random(29);
        for (int ranges : List.of(1, 2, 3, 4, 7, 64, 1024)) {
            for (int index = 0; index < 300; index++) {
                EffectivePartitionKey key = EffectivePartitionKey.of(PartitionKey.of("k" + random.nextLong()));
                int range = key.rangeIndex(ranges);
                assertThat(key.toHex()).as("%d ranges", ranges)
                        .isGreaterThanOrEqualTo(EffectivePartitionKey.rangeStart(range, ranges))
                        .isLessThan(EffectivePartitionKey.rangeStart(range + 1, ranges));
            }
            assertThat(EffectivePartitionKey.rangeStart(0, ranges)).isEmpty();
            assertThat(EffectivePartitionKey.rangeStart(ranges, ranges)).isEqualTo("FF");
        }
    }

    @Test
    void equalKeysShareTheirHash() {
        PartitionKey ten = PartitionKey.fromJson(JsonNodeFactory.instance.numberNode(new BigDecimal("10")));
        PartitionKey tenPointZero = PartitionKey.fromJson(JsonNodeFactory.instance.numberNode(new BigDecimal("10.0")));
        PartitionKey minusZero = PartitionKey.fromJson(JsonNodeFactory.instance.numberNode(new BigDecimal("-0.0")));
        assertThat(EffectivePartitionKey.of(ten).toHex()).isEqualTo(EffectivePartitionKey.of(tenPointZero).toHex());
        assertThat(EffectivePartitionKey.of(minusZero).toHex()).isEqualTo(EffectivePartitionKey.of(PartitionKey.of(0))
                .toHex());
    }
}
