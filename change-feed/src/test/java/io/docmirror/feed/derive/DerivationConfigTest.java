package io.docmirror.feed.derive;

import org.junit.jupiter.api.Test;

import java.util.List;

import static io.docmirror.feed.derive.DerivationTesting.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class DerivationConfigTest {
    @Test
    void readsTheScenario() {
        Derivation derivation = DerivationTesting.scenario();

        assertThat(derivation.name()).isEqualTo("orders");
        assertThat(derivation.processorName()).isEqualTo("derive-orders");
        assertThat(derivation.targets()).extracting(TargetMapping::container)
                .containsExactly("Customers", "Orders", "Items");
        TargetMapping items = derivation.targets().get(2);
        assertThat(items.split()).map(Object::toString).contains("/items");
        assertThat(items.deleteWithSource()).isTrue();
        assertThat(items.defaultTtl()).isNull();
        assertThat(items.analyticalTtl()).isEqualTo(-1);
        assertThat(derivation.targets().get(0).deleteWithSource()).isFalse();
    }

    @Test
    void noSectionMeansNoDerivations() {
        assertThat(DerivationConfig.fromConfig(null)).isEmpty();
        assertThat(DerivationConfig.fromConfig(json("null"))).isEmpty();
    }

    @Test
    void eachMistakeNamesItsKey() {
        assertInvalid("{\"d\": {\"targets\": {\"T\": {\"partition-key\": \"/k\", \"id\": \"{k}\"}}}}",
                "Invalid configuration derivations.d.source: it is required");
        assertInvalid("{\"d\": {\"source\": \"S\", \"targets\": {}}}",
                "Invalid configuration derivations.d.targets: it must map each target container's name to its mapping");
        assertInvalid(target("\"partition-key\": \"k\", \"id\": \"{k}\""),
                "Invalid configuration derivations.d.targets.T.partition-key: k is not a JSON pointer: it must start "
                        + "with / (such as /customer/name)");
        assertInvalid(target("\"partition-key\": \"/k\", \"id\": \"k\""),
                "Invalid configuration derivations.d.targets.T.id: it has no {field} placeholder, so every document "
                        + "would get the same id");
        assertInvalid(target("\"partition-key\": \"/k\", \"id\": \"{k}\", \"index-field\": \"i\""),
                "Invalid configuration derivations.d.targets.T: parent-fields and index-field need split (they "
                        + "describe array elements)");
        assertInvalid(target("\"partition-key\": \"/k\", \"id\": \"{k}\", \"flatten\": \"yes\""),
                "Invalid value yes for configuration derivations.d.targets.T.flatten: must be true or false");
        assertInvalid(target("\"partition-key\": \"/k\", \"id\": \"{k}\", \"ttl\": \"a day\""),
                "Invalid value a day for configuration derivations.d.targets.T.ttl: must be an integer");
        assertInvalid(target("\"partition-key\": \"/k\", \"id\": \"{k}\", \"ttl\": 1.5"),
                "Invalid value 1.5 for configuration derivations.d.targets.T.ttl: must be an integer");
        assertInvalid(target("\"partition-key\": \"/k\", \"id\": \"{k}\", \"ttl\": 9999999999"),
                "Invalid value 9999999999 for configuration derivations.d.targets.T.ttl: must be -1 or a number of "
                        + "seconds");
        assertInvalid(target("\"partition-key\": 7, \"id\": \"{k}\""), "Invalid value (a number) for "
                + "configuration derivations.d.targets.T.partition-key: must be a string; put it in quotes");
        assertInvalid(target("\"partition-key\": \"/k\", \"id\": \"{k}\", \"fields\": {\"k\": [\"/k\"]}"),
                "Invalid value (a list) for configuration derivations.d.targets.T.fields.k: must be a string");
        assertInvalid(target("\"partition-key\": \"/k\", \"id\": \"{k}\", \"ttl\": 0"),
                "Invalid configuration derivations.d.targets.T: Container T cannot have default TTL 0: it must be "
                        + "absent, -1 or a positive number of seconds");
        assertInvalid(target("\"partition-key\": \"/k\", \"id\": \"{k}\", \"drop\": \"/a\""),
                "Invalid configuration derivations.d.targets.T.drop: it must be a list of JSON pointers such as "
                        + "[/items, /customer/email]");
        assertInvalid(target("\"partition-key\": \"/k\", \"id\": \"{k}\", \"split-on\": \"/a\""),
                "Unknown configuration derivations.d.targets.T.split-on (did you mean split?); see "
                        + "docs/configuration.md");
    }

    @Test
    void aDerivationCannotWriteItsSourceAndTwoCannotShareATarget() {
        assertInvalid("{\"d\": {\"source\": \"S\", \"targets\": {\"S\": {\"partition-key\": \"/k\", \"id\": \"{k}\"}}}}",
                "Invalid configuration derivations.d.targets.S: a derivation cannot write its own source");
        String twoWriters = "{\"a\": {\"source\": \"S\", \"targets\": {\"T\": {\"partition-key\": \"/k\", \"id\": \"{k}\"}}},"
                + " \"b\": {\"source\": \"R\", \"targets\": {\"T\": {\"partition-key\": \"/k\", \"id\": \"{k}\"}}}}";
        assertInvalid(twoWriters, "Invalid configuration derivations.b.targets.T: derivation a already writes that "
                + "container, and two derivations would overwrite each other");
    }

    private static String target(String keys) {
        return "{\"d\": {\"source\": \"S\", \"targets\": {\"T\": {" + keys + "}}}}";
    }

    private static void assertInvalid(String config, String message) {
        assertThatThrownBy(() -> DerivationConfig.fromConfig(json(config)))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage(message);
    }

    @Test
    void derivationsKeepTheirOrder() {
        List<Derivation> derivations = DerivationConfig.fromConfig(json(
                "{\"z\": {\"source\": \"S\", \"targets\": {\"T\": {\"partition-key\": \"/k\", \"id\": \"{k}\"}}},"
                        + " \"a\": {\"source\": \"S\", \"targets\": {\"U\": {\"partition-key\": \"/k\", \"id\": \"{k}\"}}}}"));

        assertThat(derivations).extracting(Derivation::name).containsExactly("z", "a");
    }
}
