package io.docmirror.query;

/**
 * The aggregates, by their Cosmos DB names, and what each makes of its values (undefined values are skipped by all):
 * COUNT counts the defined values; SUM and AVG add exact decimals and are undefined when any value is not a number;
 * MIN and MAX keep the least and greatest value in {@link JsonOrder}, exactly as stored, and are undefined when a
 * value is an array or an object. Over no values COUNT and SUM give 0, AVG, MIN and MAX undefined.
 */
enum AggregateFunction {
    COUNT("Count"),
    SUM("Sum"),
    AVG("Average"),
    MIN("Min"),
    MAX("Max");

    private final String planName;

    AggregateFunction(String planName) {
        this.planName = planName;
    }

    /** The name a query plan gives the aggregate ({@code "Count"}, {@code "Average"}, ...), as the SDKs read it. */
    String planName() {
        return planName;
    }
}
