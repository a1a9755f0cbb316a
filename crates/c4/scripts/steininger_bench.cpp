// Side-by-side reference: runs Christophe Steininger's Connect Four solver
// (github.com/ChristopheSteininger/c4, commit 80baa53, built here for one board size at a
// time) over test-set lines the way `transpo-c4 bench` runs ours: one position a line,
// table cleared before each (not timed), only the solve call timed.
//
// This file is ours; his solver is not in this repository. To build, copy his `src/`
// directory, set BOARD_WIDTH, BOARD_HEIGHT and NUM_THREADS in `src/solver/settings.h`, put
// this file beside `src/c4.cpp`, and (his flags; g++ 12):
//
//   g++ -std=c++20 -Wall -O3 -flto -DNDEBUG src/steininger_bench.cpp src/solver/*.cpp \
//       src/solver/*/*.cpp -o steininger_bench -lpthread
//
// Input, one position a line: "moves [expected]", 1-based column digits or "-" for the empty
// board. Output: "moves score micros" a line on stdout (score from the side to move, Pons'
// convention, which is his); bad lines and scores other than the expected one on stderr as
// "line N: ...", exit status 1 if any. --keep-table keeps the table between positions;
// --nodes appends his node count (not comparable with ours: he follows forced lines without
// counting them). Build with SOLVE_STRONGLY below false for weak solves.
//
// Only his public interface is used: Position::is_move_valid, move, is_game_over;
// Solver::clear_state, solve_strong, solve_weak, get_settings_string, get_merged_stats.

#include <chrono>
#include <stdexcept>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>

#include "solver/position.h"
#include "solver/settings.h"
#include "solver/solver.h"

// Use this bool to switch between providing a strong or weak solution
// to the chosen position (same meaning as in c4.cpp).
static inline constexpr bool SOLVE_STRONGLY = true;

static bool parse_moves(const std::string &moves, Position &pos, std::string &error) {
    if (moves == "-") {
        return true;
    }
    for (char c : moves) {
        if (c < '1' || c > '9' || c - '1' >= BOARD_WIDTH) {
            error = std::string("bad column '") + c + "'";
            return false;
        }
        if (pos.is_game_over()) {
            error = "move after the game is over";
            return false;
        }
        int col = c - '1';
        if (!pos.is_move_valid(col)) {
            error = std::string("column ") + c + " is full";
            return false;
        }
        pos.move(col);
    }
    if (pos.is_game_over()) {
        error = "the game is over (a four or a full board)";
        return false;
    }
    return true;
}

int main(int argc, char **argv) {
    bool keep_table = false;
    bool print_nodes = false;
    for (int i = 1; i < argc; i++) {
        std::string arg = argv[i];
        if (arg == "--keep-table") {
            keep_table = true;
        } else if (arg == "--nodes") {
            print_nodes = true;
        } else {
            std::cerr << "usage: " << argv[0] << " [--keep-table] [--nodes] < positions" << std::endl;
            return 2;
        }
    }

    Solver solver{};
    std::cerr << solver.get_settings_string() << (SOLVE_STRONGLY ? "Strongly" : "Weakly")
              << " solving positions from stdin." << std::endl;

    bool all_ok = true;
    std::string line;
    for (long line_no = 1; std::getline(std::cin, line); line_no++) {
        std::istringstream in(line);
        std::string moves, expected_text, extra;
        in >> moves >> expected_text >> extra;
        if (moves.empty() || !extra.empty()) {
            std::cerr << "line " << line_no << ": expected \"moves [expected]\"" << std::endl;
            all_ok = false;
            continue;
        }

        Position pos{};
        std::string error;
        if (!parse_moves(moves, pos, error)) {
            std::cerr << "line " << line_no << ": " << error << std::endl;
            all_ok = false;
            continue;
        }

        bool has_expected = !expected_text.empty();
        int expected = 0;
        if (has_expected) {
            try {
                size_t used = 0;
                expected = std::stoi(expected_text, &used);
                if (used != expected_text.size()) throw std::invalid_argument("trailing");
            } catch (const std::exception &) {
                std::cerr << "line " << line_no << ": bad expected score '" << expected_text << "'" << std::endl;
                all_ok = false;
                continue;
            }
        }

        if (!keep_table) {
            solver.clear_state();
        }

        auto start = std::chrono::steady_clock::now();
        int score = SOLVE_STRONGLY ? solver.solve_strong(pos) : solver.solve_weak(pos);
        auto elapsed = std::chrono::steady_clock::now() - start;
        double micros = std::chrono::duration_cast<std::chrono::nanoseconds>(elapsed).count() / 1000.0;

        char buf[64];
        std::snprintf(buf, sizeof buf, "%.3f", micros);
        std::cout << moves << ' ' << score << ' ' << buf;
        if (print_nodes) {
            std::cout << ' ' << solver.get_merged_stats().get_num_nodes();
        }
        std::cout << std::endl;

        if (has_expected) {
            int want = SOLVE_STRONGLY ? expected : (expected > 0) - (expected < 0);
            if (score != want) {
                std::cerr << "line " << line_no << ": " << moves << " expected " << want << ", got " << score
                          << std::endl;
                all_ok = false;
            }
        }
    }

    return all_ok ? 0 : 1;
}
