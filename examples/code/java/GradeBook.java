import java.util.ArrayList;
import java.util.List;
import java.util.Scanner;

/**
 * Reads "name score" pairs from standard input, prints each student's
 * letter grade, then the class mean, highest and lowest score.
 */
public class GradeBook {

    // Lower bounds of the letter grades, best grade first.
    private static final int[] CUTOFFS = {90, 80, 70, 60};
    private static final char[] LETTERS = {'A', 'B', 'C', 'D'};

    static char letterFor(double score) {
        for (int i = 0; i < CUTOFFS.length; i++) {
            if (score >= CUTOFFS[i]) {
                return LETTERS[i];
            }
        }
        return 'F';
    }

    public static void main(String[] args) {
        Scanner in = new Scanner(System.in);
        List<String> names = new ArrayList<>();
        List<Double> scores = new ArrayList<>();
        while (in.hasNext()) {
            names.add(in.next());
            scores.add(in.nextDouble());
        }
        if (scores.isEmpty()) {
            System.out.println("no scores given");
            return;
        }
        double sum = 0, best = scores.get(0), worst = scores.get(0);
        for (int i = 0; i < scores.size(); i++) {
            double s = scores.get(i);
            sum += s;
            best = Math.max(best, s);
            worst = Math.min(worst, s);
            System.out.printf("%-12s %6.1f  %c%n", names.get(i), s, letterFor(s));
        }
        double mean = sum / scores.size();
        System.out.printf("mean %.2f, highest %.1f, lowest %.1f%n", mean, best, worst);
        System.out.println("class grade: " + letterFor(mean));
    }
}
