// A small project tracker served by NestJS with @dataui/crud (the maintained fork of @nestjsx/crud)
// on TypeORM 0.3 and SQLite (better-sqlite3), for the rea fidelity corpus.
//
// Usage: node run/dist/main.js PORT  (from the app's run/ folder: the SQLite file tracker.sqlite is
// deleted and created again from ../seed.json at every start). Binds 127.0.0.1 only.
//
// The clock every write stamps is frozen (CLOCK); Express's `X-Powered-By` is off; no header
// changes from one call to the next but `Date`.
import 'reflect-metadata';
import * as fs from 'fs';
import * as path from 'path';

import { CrudConfigService } from '@dataui/crud';

// Global @dataui/crud options: loaded before any controller is decorated.
CrudConfigService.load({
  query: { alwaysPaginate: false, maxLimit: 50 },
  routes: { deleteOneBase: { returnDeleted: true } },
});

import {
  ArgumentsHost, Catch, Controller, ExceptionFilter, HttpStatus, Injectable, Module,
} from '@nestjs/common';
import { NestFactory, BaseExceptionFilter, HttpAdapterHost } from '@nestjs/core';
import { InjectRepository, TypeOrmModule } from '@nestjs/typeorm';
import { Crud, CrudController, CrudValidationGroups } from '@dataui/crud';
import { TypeOrmCrudService } from '@dataui/crud-typeorm';
import {
  BeforeInsert, BeforeUpdate, Column, DataSource, Entity, JoinColumn, ManyToOne, OneToMany,
  PrimaryGeneratedColumn, QueryFailedError, Repository,
} from 'typeorm';
import {
  IsBoolean, IsDateString, IsEmail, IsIn, IsInt, IsNotEmpty, IsOptional, IsString, Matches, Max, MaxLength,
  Min, ValidateIf,
} from 'class-validator';

const { CREATE, UPDATE } = CrudValidationGroups;

export const CLOCK = '2026-12-06T09:30:00.000Z';
const HERE = path.resolve(__dirname, '..', '..');

// ---------------------------------------------------------------- entities
@Entity('projects')
export class Project {
  @PrimaryGeneratedColumn() id: number;

  @IsOptional({ groups: [UPDATE] })
  @IsNotEmpty({ groups: [CREATE] })
  @IsString({ always: true })
  @Matches(/^[A-Z]{2,6}$/, { always: true, message: 'code must be 2 to 6 capital letters' })
  @Column({ unique: true })
  code: string;

  @IsOptional({ groups: [UPDATE] })
  @IsNotEmpty({ groups: [CREATE] })
  @IsString({ always: true })
  @MaxLength(80, { always: true })
  @Column()
  name: string;

  @IsOptional({ always: true })
  @IsInt({ always: true })
  @Min(0, { always: true })
  @Column({ type: 'integer', default: 0 })
  budget: number;

  @IsOptional({ always: true })
  @IsBoolean({ always: true })
  @Column({ type: 'boolean', default: true })
  active: boolean;

  @OneToMany(() => Task, (t) => t.project)
  tasks: Task[];
}

@Entity('people')
export class Person {
  @PrimaryGeneratedColumn() id: number;

  @IsOptional({ groups: [UPDATE] })
  @IsNotEmpty({ groups: [CREATE] })
  @IsString({ always: true })
  @MaxLength(80, { always: true })
  @Column()
  name: string;

  @ValidateIf((o) => o.email !== null && o.email !== undefined, { always: true })
  @IsEmail({}, { always: true })
  @Column({ type: 'varchar', nullable: true })
  email: string | null;

  @IsOptional({ always: true })
  @IsIn(['engineer', 'designer', 'manager'], { always: true })
  @Column({ default: 'engineer' })
  role: string;

  @OneToMany(() => Task, (t) => t.assignee)
  tasks: Task[];
}

@Entity('tasks')
export class Task {
  @PrimaryGeneratedColumn() id: number;

  @IsOptional({ groups: [UPDATE] })
  @IsNotEmpty({ groups: [CREATE] })
  @IsString({ always: true })
  @MaxLength(120, { always: true })
  @Column()
  title: string;

  @IsOptional({ always: true })
  @IsIn(['todo', 'doing', 'done'], { always: true })
  @Column({ default: 'todo' })
  status: string;

  @IsOptional({ always: true })
  @IsInt({ always: true })
  @Min(1, { always: true })
  @Max(3, { always: true })
  @Column({ type: 'integer', default: 2 })
  priority: number;

  @ValidateIf((o) => o.estimate !== null && o.estimate !== undefined, { always: true })
  @IsInt({ always: true })
  @Min(0, { always: true })
  @Column({ type: 'integer', nullable: true })
  estimate: number | null;

  @ValidateIf((o) => o.due !== null && o.due !== undefined, { always: true })
  @IsDateString({ strict: true }, { always: true })
  @Column({ type: 'date', nullable: true })
  due: string | null;

  @IsOptional({ groups: [UPDATE] })
  @IsNotEmpty({ groups: [CREATE] })
  @IsInt({ always: true })
  @Column({ type: 'integer' })
  projectId: number;

  @ValidateIf((o) => o.assigneeId !== null && o.assigneeId !== undefined, { always: true })
  @IsInt({ always: true })
  @Column({ type: 'integer', nullable: true })
  assigneeId: number | null;

  @Column({ type: 'varchar' })
  createdAt: string;

  @Column({ type: 'varchar' })
  updatedAt: string;

  @ManyToOne(() => Project, (p) => p.tasks, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'projectId' })
  project: Project;

  @ManyToOne(() => Person, (p) => p.tasks, { onDelete: 'SET NULL', nullable: true })
  @JoinColumn({ name: 'assigneeId' })
  assignee: Person | null;

  // The frozen clock: every create and every update stamps CLOCK.
  @BeforeInsert()
  stampCreate() {
    this.createdAt = CLOCK;
    this.updatedAt = CLOCK;
  }

  @BeforeUpdate()
  stampUpdate() {
    this.updatedAt = CLOCK;
  }
}

// ---------------------------------------------------------------- services and controllers
@Injectable()
export class ProjectsService extends TypeOrmCrudService<Project> {
  constructor(@InjectRepository(Project) repo: Repository<Project>) { super(repo); }
}

@Injectable()
export class PeopleService extends TypeOrmCrudService<Person> {
  constructor(@InjectRepository(Person) repo: Repository<Person>) { super(repo); }
}

@Injectable()
export class TasksService extends TypeOrmCrudService<Task> {
  constructor(@InjectRepository(Task) repo: Repository<Task>) { super(repo); }
}

@Crud({
  model: { type: Project },
  query: { join: { tasks: {} }, sort: [{ field: 'id', order: 'ASC' }] },
})
@Controller('projects')
export class ProjectsController implements CrudController<Project> {
  constructor(public service: ProjectsService) {}
}

@Crud({
  model: { type: Person },
  query: { join: { tasks: {} }, sort: [{ field: 'id', order: 'ASC' }] },
})
@Controller('people')
export class PeopleController implements CrudController<Person> {
  constructor(public service: PeopleService) {}
}

@Crud({
  model: { type: Task },
  query: { join: { project: {}, assignee: {} }, sort: [{ field: 'id', order: 'ASC' }] },
})
@Controller('tasks')
export class TasksController implements CrudController<Task> {
  constructor(public service: TasksService) {}
}

// The nested route's create body: as a task's, but `projectId` comes from the path (the validation
// runs before @dataui/crud merges the path's params into the body).
export class NestedTaskCreate {
  @IsNotEmpty() @IsString() @MaxLength(120) title: string;
  @IsOptional() @IsIn(['todo', 'doing', 'done']) status?: string;
  @IsOptional() @IsInt() @Min(1) @Max(3) priority?: number;
  @ValidateIf((o) => o.estimate !== null && o.estimate !== undefined) @IsInt() @Min(0) estimate?: number | null;
  @ValidateIf((o) => o.due !== null && o.due !== undefined) @IsDateString({ strict: true }) due?: string | null;
  @ValidateIf((o) => o.assigneeId !== null && o.assigneeId !== undefined) @IsInt() assigneeId?: number | null;
}

// The nested route: the project's id from the path filters every read and is set on every write.
@Crud({
  model: { type: Task },
  dto: { create: NestedTaskCreate },
  params: { projectId: { field: 'projectId', type: 'number' } },
  query: { join: { project: {}, assignee: {} }, sort: [{ field: 'id', order: 'ASC' }] },
})
@Controller('projects/:projectId/tasks')
export class ProjectTasksController implements CrudController<Task> {
  constructor(public service: TasksService) {}
}

// SQLite's constraint failures answer 409 (a taken unique code) or 400 (a foreign key naming no row)
// instead of Nest's default 500.
@Catch(QueryFailedError)
export class ConstraintFilter extends BaseExceptionFilter {
  catch(exception: QueryFailedError, host: ArgumentsHost) {
    const code = (exception as any).driverError?.code || '';
    const res = host.switchToHttp().getResponse();
    if (code === 'SQLITE_CONSTRAINT_UNIQUE') {
      const field = String(exception.message).replace(/^.*UNIQUE constraint failed: \w+\./, '');
      return res.status(HttpStatus.CONFLICT).json({
        statusCode: 409, message: `${field} is already taken`, error: 'Conflict',
      });
    }
    if (code === 'SQLITE_CONSTRAINT_FOREIGNKEY') {
      return res.status(HttpStatus.BAD_REQUEST).json({
        statusCode: 400, message: 'a referenced row does not exist', error: 'Bad Request',
      });
    }
    return super.catch(exception, host);
  }
}

const DB = path.resolve(process.cwd(), 'tracker.sqlite');

@Module({
  imports: [
    TypeOrmModule.forRoot({
      type: 'better-sqlite3', database: DB, entities: [Project, Person, Task], synchronize: true,
    }),
    TypeOrmModule.forFeature([Project, Person, Task]),
  ],
  controllers: [ProjectsController, PeopleController, ProjectTasksController, TasksController],
  providers: [ProjectsService, PeopleService, TasksService],
})
export class AppModule {}

// ---------------------------------------------------------------- seed and start
async function seed(ds: DataSource) {
  const data = JSON.parse(fs.readFileSync(path.join(HERE, 'seed.json'), 'utf8'));
  // Plain inserts: no entity hook runs, so the seed's own clocks stay.
  await ds.createQueryBuilder().insert().into(Project).values(data.projects).execute();
  await ds.createQueryBuilder().insert().into(Person).values(data.people).execute();
  for (const t of data.tasks) {
    await ds.createQueryBuilder().insert().into(Task).values(t).callListeners(false).execute();
  }
}

async function main() {
  const port = Number(process.argv[2] || 18888);
  for (const f of [DB, DB + '-journal', DB + '-wal', DB + '-shm']) {
    if (fs.existsSync(f)) fs.unlinkSync(f);
  }
  const app = await NestFactory.create(AppModule, { logger: ['error', 'warn', 'log'] });
  app.getHttpAdapter().getInstance().disable('x-powered-by');
  const { httpAdapter } = app.get(HttpAdapterHost);
  app.useGlobalFilters(new ConstraintFilter(httpAdapter));
  await seed(app.get(DataSource));
  app.enableShutdownHooks();
  await app.listen(port, '127.0.0.1');
  console.log(`nestjs-crud tracker on http://127.0.0.1:${port}`);
}

main();
