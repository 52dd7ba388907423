package io.docmirror.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class SqlCommandTest {
    @TempDir
    Path dir;

    @BeforeEach
    void mirrorTwoOrders() throws Exception {
        Path orders = Files.writeString(dir.resolve("orders.jsonl"), """
                {"id":"o1","c":"x","total":12.345678901234567890123,"tags":["a","b"],"note":"say \\"hi\\", then go"}
                {"id":"o2","c":"y","total":3,"tags":[]}
                """);
        assertThat(Docmirror.run("import", "--data", dir.toString(), "--container", "orders", "--pk", "/c",
                orders.toString())).isEqualTo(ExitCodes.OK);
        assertThat(Docmirror.run("mirror", "sync", "--data", dir.toString())).isEqualTo(ExitCodes.OK);
    }

    @Test
    void jsonLinesKeepListsDecimalsAndNulls() {
        String output = sql("--format", "jsonl",
                "SELECT id, total, tags, note, {'n': 1, 'm': [1, 2]} AS s, []::INTEGER[] AS e FROM orders ORDER BY id");

        assertThat(output.lines()).containsExactly(
                "{\"id\":\"o1\",\"total\":12.345678901234567890123,\"tags\":[\"a\",\"b\"],"
                        + "\"note\":\"say \\\"hi\\\", then go\",\"s\":{\"n\":1,\"m\":[1,2]},\"e\":[]}",
                "{\"id\":\"o2\",\"total\":3.000000000000000000000,\"tags\":null,\"note\":null,"
                        + "\"s\":{\"n\":1,\"m\":[1,2]},\"e\":[]}");
    }

    @Test
    void csvQuotesWhatNeedsQuoting() {
        String output = sql("--format", "csv", "SELECT id, note, tags FROM orders ORDER BY id");

        assertThat(output.lines()).containsExactly(
                "id,note,tags",
                "o1,\"say \"\"hi\"\", then go\",\"[\"\"a\"\",\"\"b\"\"]\"",
                "o2,,");
    }

    @Test
    void tableAlignsColumnsAndCountsRows() {
        String output = sql("SELECT id, c FROM orders ORDER BY id");

        assertThat(output.lines()).containsExactly(
                "id | c",
                "---+--",
                "o1 | x",
                "o2 | y",
                "(2 rows)");
    }

    @Test
    void doublesReadAsPlainDigitsUnlessTheyRunLong() {
        String output = sql("--format", "csv", "SELECT 23858810.52::DOUBLE AS a, 0.1::DOUBLE AS b, 3::DOUBLE AS c, "
                + "1e300::DOUBLE AS d, 1.5e-7::DOUBLE AS e, -0.0::DOUBLE AS f");

        assertThat(output.lines()).containsExactly("a,b,c,d,e,f", "23858810.52,0.1,3,1.0E300,1.5E-7,0");
    }

    @Test
    void statusShowsWhereTheSqlCopyStandsBesideTheTables() throws Exception {
        sql("SELECT count(*) FROM orders");
        Files.writeString(dir.resolve("more.jsonl"), "{\"id\":\"o3\",\"c\":\"x\",\"total\":1}\n");
        assertThat(Docmirror.run("import", "--data", dir.toString(), "--container", "orders", "--pk", "/c",
                dir.resolve("more.jsonl").toString())).isEqualTo(ExitCodes.OK);
        assertThat(Docmirror.run("mirror", "sync", "--data", dir.toString())).isEqualTo(ExitCodes.OK);

        JsonNode behind = new ObjectMapper().readTree(capture("status", "--data", dir.toString(), "--json"))
                .path("containers").get(0);
        assertThat(behind.path("sqlCopy").path("batchesBehind").asLong()).as("%s", behind).isEqualTo(1);

        assertThat(sql("--format", "csv", "SELECT count(*) AS n FROM orders").lines()).containsExactly("n", "3");
        JsonNode caughtUp = new ObjectMapper().readTree(capture("status", "--data", dir.toString(), "--json"))
                .path("containers").get(0);
        assertThat(caughtUp.path("sqlCopy").path("batchesBehind").asLong()).as("%s", caughtUp).isZero();
        assertThat(caughtUp.path("sqlCopy").path("batch").asLong()).isEqualTo(caughtUp.path("batch").asLong());
    }

    @Test
    void refusedQueryFailsWithTheRule() {
        ByteArrayOutputStream errors = new ByteArrayOutputStream();
        PrintStream original = System.err;
        System.setErr(new PrintStream(errors, true, StandardCharsets.UTF_8));
        int exit;
        try {
            exit = Docmirror.run("sql", "--data", dir.toString(), "COPY orders TO '/tmp/x.csv'");
        } finally {
            System.setErr(original);
        }
        assertThat(exit).isEqualTo(ExitCodes.FAILURE);
        assertThat(errors.toString(StandardCharsets.UTF_8)).contains("read-only");
    }

    private String sql(String... arguments) {
        String[] command = new String[arguments.length + 3];
        command[0] = "sql";
        command[1] = "--data";
        command[2] = dir.toString();
        System.arraycopy(arguments, 0, command, 3, arguments.length);
        return capture(command);
    }

    private static String capture(String... command) {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
        try {
            assertThat(Docmirror.run(command)).isEqualTo(ExitCodes.OK);
        } finally {
            System.setOut(original);
        }
        return captured.toString(StandardCharsets.UTF_8);
    }
}
