package io.docmirror.cli;

import me.tongfei.progressbar.InteractiveConsoleProgressBarConsumer;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;

/** The commands' progress bars: ASCII, on standard error, so standard output keeps only the results. */
final class ConsoleProgress {
    private ConsoleProgress() {
    }

    /** @param max the total, or -1 when it is not known */
    static ProgressBarBuilder bar(String task, long max) {
        return new ProgressBarBuilder()
                .setTaskName(task)
                .setInitialMax(max)
                .setStyle(ProgressBarStyle.ASCII)
                .setConsumer(new InteractiveConsoleProgressBarConsumer(System.err));
    }
}
