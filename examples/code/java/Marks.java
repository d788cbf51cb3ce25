import java.util.ArrayList;
import java.util.List;
import java.util.Scanner;

// Marks: grade calculator (homework 2).
// Input lines look like "student mark"; output is one line per student
// plus a summary at the end.
public class Marks
{
    /* minimum mark for A, B, C and D */
    private static final int[] BOUNDS = { 90, 80, 70, 60 };
    private static final char[] GRADES = { 'A', 'B', 'C', 'D' };

    static char gradeOf(double mark)
    {
        for (int k = 0; k < BOUNDS.length; k++)
        {
            if (mark >= BOUNDS[k])
                return GRADES[k];
        }
        return 'F';
    }


    public static void main(String[] argv)
    {
        Scanner sc = new Scanner(System.in);
        List<String> students = new ArrayList<>();
        List<Double> marks = new ArrayList<>();

        while (sc.hasNext())
        {
            students.add(sc.next());
            marks.add(sc.nextDouble());
        }
        if (marks.isEmpty())
        {
            System.out.println("no scores given");
            return;
        }

        double total = 0, top = marks.get(0), bottom = marks.get(0);
        for (int k = 0; k < marks.size(); k++)
        {
            double m = marks.get(k);
            total += m;
            top = Math.max(top, m);
            bottom = Math.min(bottom, m);
            System.out.printf("%-12s %6.1f  %c%n", students.get(k), m, gradeOf(m));
        }

        double avg = total / marks.size();
        System.out.printf("mean %.2f, highest %.1f, lowest %.1f%n", avg, top, bottom);
        System.out.println("class grade: " + gradeOf(avg));
    }
}
